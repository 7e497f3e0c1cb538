package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.format.KeyValue;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * kine's state.db as waldoctor's source: the real kine (../shared/tools/kine) takes the API server's transactions
 * (creates, updates, deletes, re-creates, leased keys) and decides what its rows mean; then, killed -9 (the last
 * rows only in state.db-wal), its database is opened from a private copy, and every revision is answered as kine
 * served it with {@code etcdctl get --rev}: value, create_revision, mod_revision, lease (kine keeps no version).
 */
class KineSourceTest {
    @TempDir
    Path dir;

    static void create(String ep, String key, String value, long lease) throws Exception {
        assertTrue(Etcdctl.create(ep, key, value, lease), "created " + key);
    }

    static void change(String ep, String key, String op) throws Exception {
        assertTrue(Etcdctl.change(ep, key, op), op);
    }

    static Map<String, List<Long>> servedAt(String ep, long rev, Map<String, String> values) throws Exception {
        Map<String, List<Long>> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "/registry/", rev)) {
            values.put(rev + " " + kv.key(), kv.valueText());
            m.put(kv.key(), List.of(kv.createRevision(), kv.modRevision(), kv.lease()));
        }
        return m;
    }

    @Test
    void everyRevisionOfAKineDbIsAnsweredAsKineServedIt() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path data = Files.createDirectories(dir.resolve("k3s/server/db"));
        KineServer k = KineServer.start(data.resolve("state.db"), dir.resolve("kine.log"));
        String ep = k.endpoint();
        Map<Long, Map<String, List<Long>>> served = new TreeMap<>();
        Map<String, String> servedValues = new TreeMap<>();
        long last;
        try {
            for (int i = 0; i < 8; i++) create(ep, "/registry/configmaps/ns0/cm-" + i, "v0-" + i, 0);
            for (int i = 0; i < 4; i++) change(ep, "/registry/configmaps/ns0/cm-" + i, "put /registry/configmaps/ns0/cm-" + i + " v1-" + i);
            change(ep, "/registry/configmaps/ns0/cm-0", "put /registry/configmaps/ns0/cm-0 v2-0");
            for (int i = 5; i < 7; i++) change(ep, "/registry/configmaps/ns0/cm-" + i, "del /registry/configmaps/ns0/cm-" + i);
            create(ep, "/registry/configmaps/ns0/cm-5", "again-5", 0);
            Etcdctl.grant(ep, 600);
            for (int i = 0; i < 3; i++) create(ep, "/registry/events/default/e-" + i, "ev-" + i, 600);
            last = Etcdctl.modRevision(ep, "/registry/events/default/e-2");
            for (long r = 1; r <= last; r++) served.put(r, servedAt(ep, r, servedValues));
        } finally {
            k.kill(); // kill -9: the latest rows stay in state.db-wal
        }
        assertTrue(Files.exists(data.resolve("state.db-wal")), "kine's rows partly in its -wal");
        byte[] before = Files.readAllBytes(data.resolve("state.db-wal"));
        // k3s's server/db directory names its state.db.
        try (StoreHistory x = Pass.history(data, null)) {
            assertEquals(dev.walkit.format.account.Store.Kind.KINE, x.source().kind());
            assertEquals(last, x.revision());
            Map<String, String> values = new TreeMap<>();
            for (long r = 1; r <= last; r++) {
                Map<String, List<Long>> got = new TreeMap<>();
                for (String key : TextKeys.liveKeys(x, "/registry/", r)) {
                    KeyValue kv = TextKeys.get(x, key, r);
                    values.put(r + " " + key, new String(kv.value(), StandardCharsets.UTF_8));
                    got.put(key, List.of(kv.createRevision(), kv.modRevision(), kv.lease()));
                }
                assertEquals(served.get(r), got, "revision " + r);
            }
            assertEquals(servedValues, values);
            assertTrue(x.account().findings().isEmpty(), "kine's history breaks no rule: " + x.account().findings());
            assertEquals(3, TextKeys.events(x, "/registry/configmaps/ns0/cm-0").size(), "a create and two updates");
            assertEquals(List.of(1L, 2L, 3L), TextKeys.events(x, "/registry/configmaps/ns0/cm-0").stream().map(KeyValue::version).toList(),
                    "versions counted from the rows");
        }
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(data.resolve("state.db-wal"))), "the source's -wal is untouched");
        WalDoctorTest.Run d = WalDoctorTest.run("diagnose", data.resolve("state.db").toString());
        assertEquals(0, d.exit(), d.out() + d.err());
        assertTrue(d.out().contains(data.resolve("state.db") + ": kine state.db (SQLite, "), d.out());
        assertTrue(d.out().contains("kine keeps no version"), d.out());
    }
}
