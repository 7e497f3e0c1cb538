package dev.walkit.migrate;

import dev.walkit.format.Fixtures;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The three stores in a round: WAL → etcd → etcd's db (etcdctl snapshot save) → WAL → kine's state.db → etcd,
 * with the real etcd 3.4 and the real kine; the live state (every key and value) is the same at each step.
 */
class RoundTripTest {
    @TempDir
    Path dir;

    static Map<String, String> ofSource(KeySource s) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (s) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                m.put(new String(k.key(), StandardCharsets.UTF_8), Base64.getEncoder().encodeToString(k.value()));
            }
        }
        return m;
    }

    static Map<String, String> ofEtcd(String ep) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "/registry/", 0)) {
            if (!kv.key().equals("/registry/health")) m.put(kv.key(), Base64.getEncoder().encodeToString(kv.value()));
        }
        return m;
    }

    static void ok(WalMigrateTest.Run r) {
        assertEquals(0, r.exit(), r.out() + r.err());
    }

    @Test
    void theLiveStateSurvivesEveryStore() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path wal = Fixtures.path("vectors/small/wal");
        Map<String, String> want = ofSource(WalSource.open(wal));
        assertEquals(116, want.size());
        Path snapshot = dir.resolve("snapshot.db");
        try (EtcdCluster a = EtcdCluster.start(dir.resolve("a"), 1)) {
            ok(WalMigrateTest.run("wal", "--wal", wal.toString(), "--endpoints", a.endpoints()));
            assertEquals(want, ofEtcd(a.endpoints()), "WAL -> etcd");
            Etcdctl.run(a.endpoints(), null, "snapshot", "save", snapshot.toString());
        }
        assertEquals(want, ofSource(EtcdDbSource.open(snapshot)), "etcd -> its db");
        Path store = dir.resolve("store");
        ok(WalMigrateTest.run("etcd-db", "--db", snapshot.toString(), "--out-wal", store.toString()));
        assertEquals(want, ofSource(WalSource.open(store)), "etcd db -> WAL");
        Path kine = dir.resolve("kine");
        ok(WalMigrateTest.run("wal", "--wal", store.toString(), "--out-kine", kine.toString()));
        assertEquals(want, ofSource(KineSource.open(kine.resolve("state.db"))), "WAL -> kine");
        try (EtcdCluster b = EtcdCluster.start(dir.resolve("b"), 1)) {
            ok(WalMigrateTest.run("kine", "--sqlite", kine.resolve("state.db").toString(), "--endpoints", b.endpoints()));
            assertEquals(want, ofEtcd(b.endpoints()), "kine -> etcd");
            WalMigrateTest.Run v = WalMigrateTest.run("verify", "--wal", wal.toString(), "--endpoints", b.endpoints());
            assertEquals(0, v.exit(), v.out() + v.err());
            assertTrue(v.out().contains("equal"), v.out());
        }
    }
}
