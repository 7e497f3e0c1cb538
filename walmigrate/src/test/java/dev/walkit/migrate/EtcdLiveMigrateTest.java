package dev.walkit.migrate;

import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code walmigrate etcd --source-endpoints}: a live etcd 3.4 into another (and into a WAL), read at one
 * revision a page at a time; the target serves what the source served, each lease at the TTL it was granted.
 */
class EtcdLiveMigrateTest {
    @TempDir
    Path dir;

    @Test
    void aLiveEtcdMovesIntoAnotherAtOneRevision() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1)) {
            String ep = src.endpoints();
            long lease = Etcdctl.grant(ep, 700);
            // More keys than a page (the scan pages by keys and bytes), a deleted one, a leased one.
            StringBuilder txn = new StringBuilder("\n");
            for (int i = 0; i < 120; i++) txn.append("put /registry/configmaps/ns/cm-").append(i).append(" v").append(i).append('\n');
            Etcdctl.run(ep, txn.append("\n\n").toString(), "txn");
            Etcdctl.run(ep, null, "del", "/registry/configmaps/ns/cm-7");
            Etcdctl.run(ep, null, "put", "/registry/leases/kube-node-lease/n1", "renew", "--lease=" + Long.toHexString(lease));
            Map<String, String> source = EtcdDbMigrateTest.served(ep);
            assertEquals(120, source.size());
            WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", ep, "--endpoints", dst.endpoints(), "--batch", "50");
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("etcd " + ep + " at revision 4"), r.out());
            assertEquals(source, EtcdDbMigrateTest.served(dst.endpoints()), "keys, values, and the lease at its TTL");
            // Offline: the WAL's revision is the one read at.
            Path out = dir.resolve("store");
            WalMigrateTest.Run w = WalMigrateTest.run("etcd", "--source-endpoints", ep, "--out-wal", out.toString());
            assertEquals(0, w.exit(), w.out() + w.err());
            assertTrue(w.out().contains("wrote " + out.resolve("wal") + ": 120 key(s) at revision 4"), w.out());
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
        }
    }

    @Test
    void whatIsWrittenAfterTheReadBeganIsNotInIt() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1)) {
            String ep = src.endpoints();
            Etcdctl.run(ep, null, "put", "/registry/a", "1");
            Etcdctl.run(ep, null, "put", "/registry/b", "1");
            try (EtcdLiveSource s = EtcdLiveSource.open(java.util.List.of(ep), "")) {
                // Written while the job runs: a new key, a changed one, a deleted one. The read stays at its revision.
                Etcdctl.run(ep, null, "put", "/registry/c", "new");
                Etcdctl.run(ep, null, "put", "/registry/a", "2");
                Etcdctl.run(ep, null, "del", "/registry/b");
                Map<String, String> read = new TreeMap<>();
                while (s.hasNext()) {
                    SourceKey k = s.next();
                    read.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.UTF_8));
                }
                assertEquals(Map.of("/registry/a", "1", "/registry/b", "1"), read);
                assertEquals(3, s.revision());
            }
        }
    }

    @Test
    void anUnreachableSourceIsNamed() {
        WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", "127.0.0.1:9", "--out-wal", dir.resolve("x").toString());
        assertEquals(5, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("127.0.0.1:9"), r.err());
        assertTrue(!r.err().contains("Exception"), r.err());
    }
}
