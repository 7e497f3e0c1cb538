package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real kine (the k3s project's server, ../shared/tools/kine) driven as the API server drives it — creates,
 * updates and deletes as compare-on-mod transactions, re-creates, leased keys, failed compares — then killed
 * with -9 so that its latest rows live only in state.db-wal; walmigrate moves those files into a real etcd,
 * and the target must hold exactly what kine itself served before the kill: every key, value and lease.
 * kine decides what its rows mean.
 */
class RealKineTest {
    @TempDir
    Path dir;

    /** What a store serves under /registry/: key → value and the lease's granted TTL (0: none). */
    private record Served(String value, long ttl) {
    }

    private static Map<String, Served> served(String endpoint, boolean kineLeases) throws Exception {
        Map<String, Served> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(endpoint, "/registry/", 0)) {
            // kine's lease ID is its TTL; etcd's is an ID, whose granted TTL timetolive says.
            long ttl = kv.lease() == 0 ? 0 : kineLeases ? kv.lease() : Etcdctl.grantedTtl(endpoint, kv.lease());
            m.put(kv.key(), new Served(kv.valueText(), ttl));
        }
        return m;
    }

    /** A create: compare mod = 0, then put (the API server's shape: no else branch). */
    private static boolean txn(String endpoint, String compare, String op) throws Exception {
        return Etcdctl.txn(endpoint, compare, op, null);
    }

    /** An update or delete: compare mod = the revision last read, then the op, else read the key again (the API server's shape). */
    private static boolean txn(String endpoint, String compare, String op, String key) throws Exception {
        return Etcdctl.txn(endpoint, compare, op, key);
    }

    private static long modRevision(String endpoint, String key) throws Exception {
        return Etcdctl.modRevision(endpoint, key);
    }

    @Test
    void whatKineServedBeforeAKill9IsWhatEtcdHoldsAfterTheMigration() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path data = Files.createDirectories(dir.resolve("k3s"));
        KineServer kine = KineServer.start(data.resolve("state.db"), dir.resolve("kine.log"));
        String ep = kine.endpoint();
        Map<String, Served> before;
        try {
            for (int i = 0; i < 30; i++) {
                assertTrue(txn(ep, "mod(\"/registry/configmaps/ns0/cm-" + i + "\") = \"0\"", "put /registry/configmaps/ns0/cm-" + i + " v0-" + i));
            }
            for (int i = 0; i < 10; i++) { // updates, on the revision the API server last read
                String k = "/registry/configmaps/ns0/cm-" + i;
                assertTrue(txn(ep, "mod(\"" + k + "\") = \"" + modRevision(ep, k) + "\"", "put " + k + " v1-" + i, k));
            }
            for (int i = 20; i < 25; i++) { // deletes
                String k = "/registry/configmaps/ns0/cm-" + i;
                assertTrue(txn(ep, "mod(\"" + k + "\") = \"" + modRevision(ep, k) + "\"", "del " + k, k));
            }
            for (int i = 20; i < 22; i++) { // re-creates
                assertTrue(txn(ep, "mod(\"/registry/configmaps/ns0/cm-" + i + "\") = \"0\"", "put /registry/configmaps/ns0/cm-" + i + " again-" + i));
            }
            // Leased keys, as the API server writes events and node leases (kine's lease ID is the TTL; etcdctl takes IDs in hex).
            Etcdctl.grant(ep, 600);
            Etcdctl.grant(ep, 1200);
            for (int i = 0; i < 5; i++) {
                assertTrue(txn(ep, "mod(\"/registry/events/default/e-" + i + "\") = \"0\"", "put --lease=" + Long.toHexString(600) + " /registry/events/default/e-" + i + " ev-" + i));
            }
            for (int i = 0; i < 3; i++) {
                assertTrue(txn(ep, "mod(\"/registry/leases/kube-node-lease/n-" + i + "\") = \"0\"", "put --lease=" + Long.toHexString(1200) + " /registry/leases/kube-node-lease/n-" + i + " hb-" + i));
            }
            // Failed compares write nothing.
            assertTrue(!txn(ep, "mod(\"/registry/configmaps/ns0/cm-0\") = \"1\"", "put /registry/configmaps/ns0/cm-0 lost", "/registry/configmaps/ns0/cm-0"));
            assertTrue(!txn(ep, "mod(\"/registry/configmaps/ns0/cm-1\") = \"0\"", "put /registry/configmaps/ns0/cm-1 lost"));
            before = served(ep, true);
        } finally {
            kine.kill(); // kill -9: the latest rows stay in state.db-wal
        }
        assertTrue(Files.size(data.resolve("state.db-wal")) > 0, "rows in the -wal after the kill");
        assertEquals(27, before.keySet().stream().filter(k -> k.startsWith("/registry/configmaps/")).count(), "30 made, 5 deleted, 2 made again: " + before.keySet());
        assertTrue(before.containsKey("/registry/health"), "kine's own health key is served, and migrated like any other");
        assertEquals(8, before.values().stream().filter(s -> s.ttl() > 0).count(), before.toString());

        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), "kine", "--sqlite", data.resolve("state.db").toString(),
                    "--endpoints", etcd.endpoints());
            assertEquals(0, code, out + " " + err);
            String target = etcd.endpoints().split(",")[0].replace("http://", "");
            assertEquals(before, served(target, false), "etcd holds what kine served: keys, values, and leases of the same TTL");
            StringWriter vout = new StringWriter();
            assertEquals(0, Cli.run(new WalMigrate(), new PrintWriter(vout), new PrintWriter(new StringWriter()), "verify", "--sqlite",
                    data.resolve("state.db").toString(), "--endpoints", etcd.endpoints()), vout.toString());
        }
    }

}
