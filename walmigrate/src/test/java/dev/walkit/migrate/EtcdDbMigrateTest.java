package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.Fixtures;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * k3s or kubeadm with etcd → another store: a real etcd 3.4 takes a workload with leases, `etcdctl snapshot save`
 * writes its db, and `walmigrate etcd-db` moves that db's live state into a second real etcd (and into a WAL,
 * offline): the target serves what the source served, each lease at the TTL it was granted with.
 */
class EtcdDbMigrateTest {
    @TempDir
    Path dir;

    /** key → value and the granted TTL of its lease (0: none), as etcd serves them. */
    static Map<String, String> served(String ep) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "/registry/", 0)) {
            m.put(kv.key(), kv.valueText() + " ttl=" + (kv.lease() == 0 ? 0 : Etcdctl.grantedTtl(ep, kv.lease())));
        }
        return m;
    }

    @Test
    void anEtcdDbMovesIntoAnotherEtcdAndIntoAWalWithItsLeasesTtls() throws Exception {
        Path snapshot = dir.resolve("snapshot.db");
        Map<String, String> source;
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1)) {
            String ep = src.endpoints();
            long lease = Etcdctl.grant(ep, 900);
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/a", "v1");
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/a", "v2");
            Etcdctl.run(ep, null, "put", "/registry/leases/kube-node-lease/n1", "renew", "--lease=" + Long.toHexString(lease));
            Etcdctl.run(ep, "\nput /registry/pods/default/p1 spec1\nput /registry/pods/default/p2 spec2\n\n\n", "txn");
            Etcdctl.run(ep, null, "del", "/registry/pods/default/p1");
            Etcdctl.run(ep, null, "compact", "3");
            Etcdctl.run(ep, null, "put", "/registry/secrets/default/s", "hunter2");
            source = served(ep);
            Etcdctl.run(ep, null, "snapshot", "save", snapshot.toString());
        }
        assertEquals(4, source.size(), source.toString());
        assertTrue(source.get("/registry/leases/kube-node-lease/n1").endsWith("ttl=900"), source.toString());
        try (EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1)) {
            WalMigrateTest.Run r = WalMigrateTest.run("etcd-db", "--db", snapshot.toString(), "--endpoints", dst.endpoints());
            assertEquals(0, r.exit(), r.out() + r.err());
            assertEquals(source, served(dst.endpoints()), "the target serves what the source served, leases at their TTLs");
            WalMigrateTest.Run v = WalMigrateTest.run("verify", "--db", snapshot.toString(), "--endpoints", dst.endpoints());
            assertEquals(0, v.exit(), v.out() + v.err());
        }
        // Offline into the store's own WAL: its live state is the db's.
        Path out = dir.resolve("store");
        WalMigrateTest.Run w = WalMigrateTest.run("etcd-db", "--db", snapshot.toString(), "--out-wal", out.toString());
        assertEquals(0, w.exit(), w.out() + w.err());
        Map<String, String> inWal = new TreeMap<>();
        try (WalSource s = WalSource.open(out)) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                inWal.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.UTF_8));
            }
        }
        Map<String, String> values = new TreeMap<>();
        source.forEach((k, v) -> values.put(k, v.substring(0, v.lastIndexOf(" ttl="))));
        assertEquals(values, inWal);
        // Beside it, as walrecover writes the pair: the lease with the TTL etcd granted it.
        JsonNode leases = new ObjectMapper().readTree(Files.readString(out.resolve("leases.json")));
        assertEquals("walkit.leases/v1", leases.get("schema").asText());
        assertEquals(1, leases.get("leases").size(), leases.toString());
        assertEquals(900, leases.get("leases").get(0).get("ttl_seconds").asLong(), leases.toString());
        assertEquals(1, leases.get("leases").get(0).get("keys").asLong());
    }

    @Test
    void aDamagedDbIsRefusedWithWhereItIsDamaged() throws Exception {
        byte[] b = Files.readAllBytes(Fixtures.path("etcd/snapshot.db"));
        b[3 * 4096 + 8] = 0; // page 3's flags: neither branch nor leaf
        Path db = dir.resolve("damaged.db");
        Files.write(db, b);
        WalMigrateTest.Run r = WalMigrateTest.run("etcd-db", "--db", db.toString(), "--out-wal", dir.resolve("out").toString());
        assertEquals(3, r.exit(), "damage: the verdict's code, as walverify's: " + r.out() + r.err());
        assertTrue(r.err().contains("the etcd db is damaged (page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page"), r.err());
        assertTrue(!Files.exists(dir.resolve("out/wal")), "nothing written");
        WalMigrateTest.Run notDb = WalMigrateTest.run("etcd-db", "--db", Fixtures.path("vectors/small/wal").toString(), "--out-wal", dir.resolve("out2").toString());
        assertEquals(4, notDb.exit(), notDb.out() + notDb.err());
        assertTrue(notDb.err().contains("not an etcd db"), notDb.err());
        // No valid meta page: not a database (as walverify and waldoctor say it), not "damaged".
        Path noMeta = dir.resolve("no-meta.db");
        Files.write(noMeta, java.util.Arrays.copyOf(Files.readAllBytes(Fixtures.path("etcd/snapshot.db")), 30));
        WalMigrateTest.Run m = WalMigrateTest.run("etcd-db", "--db", noMeta.toString(), "--out-wal", dir.resolve("out3").toString());
        assertEquals(4, m.exit(), m.out() + m.err());
        assertEquals("walmigrate: " + noMeta + ": a bbolt file with no valid meta page and no page of etcd's revisions (meta page 0: the file ends at 30, before this meta page)", m.err().strip());
    }

    /**
     * --policy as walrecover's: past an etcd db's own damage (both metas torn) only salvage copies, what the salvage past
     * the tree read, saying so; another policy is refused, saying why. The copy holds the db's live keys.
     */
    @Test
    void aDamagedEtcdDbIsCopiedUnderSalvageOnly() throws Exception {
        byte[] b = Files.readAllBytes(Fixtures.path("etcd/snapshot.db"));
        b[64] ^= 1;
        b[4096 + 64] ^= 1;
        Path db = dir.resolve("metas.db");
        Files.write(db, b);
        WalMigrateTest.Run tail = WalMigrateTest.run("etcd-db", "--db", db.toString(), "--policy", "tolerate-tail", "--out-wal", dir.resolve("t").toString());
        assertEquals(3, tail.exit(), tail.out() + tail.err());
        assertTrue(tail.err().contains("past the etcd db's own damage only --policy salvage copies"), tail.err());
        assertTrue(!Files.exists(dir.resolve("t/wal")), "nothing written");
        WalMigrateTest.Run s = WalMigrateTest.run("etcd-db", "--db", db.toString(), "--policy", "salvage", "--out-wal", dir.resolve("s").toString());
        assertEquals(0, s.exit(), s.out() + s.err());
        assertTrue(s.err().contains(db + " is damaged (") && s.err().contains("policy salvage: copying what was read past the damage, revision 14, 6 live keys"), s.err());
        Map<String, String> copied = new TreeMap<>();
        try (WalSource w = WalSource.open(dir.resolve("s"))) {
            while (w.hasNext()) {
                SourceKey k = w.next();
                copied.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(6, copied.size(), copied.toString());
        assertEquals("hunter2", copied.get("/registry/secrets/default/s1"));
    }
}
