package dev.walkit.migrate;

import dev.walkit.format.Fixtures;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --out-kine DIR}, the way back to kine: the state.db written from a WAL and from an etcd db is started by
 * the real kine (../shared/tools/kine), which serves every key with its value and its lease's TTL; and read back
 * into a WAL, the round trip WAL → kine → WAL keeps the live state.
 */
class OfflineKineTest {
    @TempDir
    Path dir;

    /** What the real kine serves from {@code stateDb} under /registry/: key → value and lease (kine's lease ID is its TTL). */
    Map<String, String> servedByKine(Path stateDb) throws Exception {
        try (KineServer k = KineServer.start(stateDb, dir.resolve("kine-" + stateDb.getParent().getFileName() + ".log"))) {
            Map<String, String> m = new TreeMap<>();
            for (Etcdctl.Kv kv : Etcdctl.get(k.endpoint(), "/registry/", 0)) {
                if (kv.key().equals("/registry/health")) continue; // kine's own, written at its first start
                m.put(kv.key(), new String(kv.value(), StandardCharsets.ISO_8859_1) + " lease=" + kv.lease());
            }
            return m;
        }
    }

    static Map<String, String> live(KeySource s, long ttl) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (s) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                m.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.ISO_8859_1)
                        + " lease=" + (k.lease() <= 0 ? 0 : s.ttlOf(k.lease(), ttl)));
            }
        }
        return m;
    }

    @Test
    void aWalsStateDbIsServedByTheRealKineAndReadsBackIntoAWal() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path wal = Fixtures.path("vectors/small/wal");
        Path out = dir.resolve("k3s-db");
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", out.toString(), "--lease-ttl", "900");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("wrote " + out.resolve("state.db") + ": 116 key(s)"), r.out());
        Map<String, String> want = live(WalSource.open(wal), 900);
        assertEquals(116, want.size());
        // Round trip first (kine, once started, adds its own rows): kine → WAL keeps the live state.
        Path back = dir.resolve("back");
        WalMigrateTest.Run b = WalMigrateTest.run("kine", "--sqlite", out.resolve("state.db").toString(), "--out-wal", back.toString());
        assertEquals(0, b.exit(), b.out() + b.err());
        Map<String, String> roundTrip = new TreeMap<>();
        live(WalSource.open(back), 0).forEach((k, v) -> roundTrip.put(k, v.replaceAll(" lease=\\d+$", "")));
        Map<String, String> values = new TreeMap<>();
        want.forEach((k, v) -> values.put(k, v.replaceAll(" lease=\\d+$", "")));
        assertEquals(values, roundTrip);
        assertEquals(want, servedByKine(out.resolve("state.db")), "kine serves each key, its value, and its lease's TTL");
        // One output at a time; and every source has both (a WAL's live state as a WAL: its snapshot form).
        WalMigrateTest.Run both = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", dir.resolve("k2").toString(), "--out-wal", dir.resolve("w2").toString());
        assertEquals(2, both.exit(), both.out() + both.err());
        assertEquals("walmigrate: --out-wal and --out-kine: one output at a time", both.err().strip());
        WalMigrateTest.Run snap = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-wal", dir.resolve("w3").toString());
        assertEquals(0, snap.exit(), snap.out() + snap.err());
        assertEquals(values, live(WalSource.open(dir.resolve("w3")), 0).entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().replaceAll(" lease=\\d+$", ""), (x, y) -> x, TreeMap::new)));
        // Never over an existing database.
        WalMigrateTest.Run again = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", out.toString());
        assertEquals(2, again.exit(), again.out() + again.err());
        assertTrue(again.err().contains(out.resolve("state.db") + " exists: choose an empty --out-kine directory"), again.err());
    }

    @Test
    void anEtcdDbsStateDbCarriesItsLeasesTtls() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path db = Fixtures.path("etcd/snapshot.db");
        Path out = dir.resolve("rollback");
        WalMigrateTest.Run r = WalMigrateTest.run("etcd-db", "--db", db.toString(), "--out-kine", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        Map<String, String> served = servedByKine(out.resolve("state.db"));
        assertEquals(live(EtcdDbSource.open(db), 0), served);
        assertEquals("holder lease=300", served.get("/registry/leases/kube-system/l1"), served.toString());
    }
}
