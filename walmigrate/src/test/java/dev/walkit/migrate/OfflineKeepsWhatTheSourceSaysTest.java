package dev.walkit.migrate;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The offline outputs keep what the source says: every key byte for byte (keys that are not UTF-8 were written as
 * U+FFFD by --out-kine), and --out-kine keeps the revisions (it wrote a key a revision from 2 on, so the real kine
 * served other mod and create revisions and its next write went back below the source's last revision).
 */
class OfflineKeepsWhatTheSourceSaysTest {
    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Revisions 1..6: a key at 1 (so kine's compact_rev_key cannot take id 1), a transaction of two keys at 2 (kine has
     * one row a revision: one of them moves past the source's revision), a key put at 3 and updated at 5, a binary key
     * at 4, a key put at 6 and deleted at 7 (the source's revision, where no live key's row is).
     */
    static Path source(Path dir) throws Exception {
        LogBuilder log = new LogBuilder();
        log.add(KeyValue.put(b("/registry/first"), 1, 1, 1, b("one"), 0));
        log.add(KeyValue.put(b("/registry/caf\u00e9"), 2, 2, 1, b("latin-1 e acute: not UTF-8"), 0).withFlags(Flags.TXN_CONT));
        log.add(KeyValue.put(b("/registry/b"), 2, 2, 1, b("two"), 0));
        log.add(KeyValue.put(b("/registry/first-updated"), 3, 3, 1, b("x"), 0));
        log.add(KeyValue.put(b("/registry/zz-binary/\u00ff\u00fe\u00fd"), 4, 4, 1, new byte[] {0, 1, (byte) 0xff}, 0));
        log.add(KeyValue.put(b("/registry/first-updated"), 3, 5, 2, b("y"), 0));
        log.add(KeyValue.put(b("/registry/b-gone"), 6, 6, 1, b("soon gone"), 0));
        log.add(KeyValue.delete(b("/registry/b-gone"), 7));
        return LogBuilder.write(dir, "wal", log.bytes());
    }

    /** key (hex) → "create mod value(hex)" of what a source or kine holds. */
    static Map<String, String> keys(KeySource s) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (s) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                m.put(HexFormat.of().formatHex(k.key()), k.createRevision() + " " + k.modRevision() + " " + HexFormat.of().formatHex(k.value()));
            }
        }
        return m;
    }

    @Test
    void outKineKeepsEveryKeysBytesAndRevisionsAndKineContinuesAfterTheSource() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path wal = source(dir);
        Map<String, String> want = keys(WalSource.open(wal));
        assertEquals(5, want.size(), want.toString());
        Path out = dir.resolve("kine");
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        // /registry/caf\xe9 and /registry/b share revision 2: the second in key order moves past the source's 7.
        assertEquals("walmigrate: wrote " + out.resolve("state.db") + ": 5 key(s) at revision 8\n"
                + "walmigrate: note: 1 key(s) shared a revision with another key (kine has one row a revision): written at revisions 8..8\n", r.out());
        Map<String, String> moved = new TreeMap<>(want);
        String cafe = HexFormat.of().formatHex(b("/registry/caf\u00e9"));
        assertTrue(moved.containsKey(cafe), moved.toString());
        moved.put(cafe, "2 8 " + HexFormat.of().formatHex(b("latin-1 e acute: not UTF-8")));
        assertEquals(moved, keys(KineSource.open(out.resolve("state.db"))), "read back: bytes and revisions");

        try (KineServer k = KineServer.start(out.resolve("state.db"), dir.resolve("kine.log"))) {
            Map<String, String> served = new TreeMap<>();
            long health = -1;
            for (Etcdctl.Kv kv : Etcdctl.get(k.endpoint(), "/registry/", 0)) {
                if (kv.key().equals("/registry/health")) {
                    health = kv.modRevision(); // kine's own first write, after the source's last revision
                    continue;
                }
                served.put(HexFormat.of().formatHex(kv.keyBytes()), kv.createRevision() + " " + kv.modRevision() + " " + HexFormat.of().formatHex(kv.value()));
            }
            assertEquals(moved, served, "kine serves each key's bytes, create and mod revision and value");
            assertEquals(9, health, "kine's first write follows the output's revision 8");
            assertTrue(Etcdctl.create(k.endpoint(), "/registry/next", "v", 0));
            assertEquals(10, Etcdctl.modRevision(k.endpoint(), "/registry/next"));
        }
    }

    @Test
    void keysThatAreNotUtf8SurviveEveryOfflinePathByteForByte() throws Exception {
        Path wal = source(dir);
        Map<String, String> want = new TreeMap<>();
        keys(WalSource.open(wal)).forEach((k, v) -> want.put(k, v.substring(v.lastIndexOf(' ') + 1)));
        List<String> paths = new ArrayList<>();
        // WAL -> kine -> WAL -> kine: the keys and values as the source has them at each step.
        Path k1 = dir.resolve("k1");
        Path w2 = dir.resolve("w2");
        Path k3 = dir.resolve("k3");
        for (String[] step : new String[][] {
                {"wal", "--wal", wal.toString(), "--out-kine", k1.toString()},
                {"kine", "--sqlite", k1.resolve("state.db").toString(), "--out-wal", w2.toString()},
                {"wal", "--wal", w2.toString(), "--out-kine", k3.toString()}}) {
            WalMigrateTest.Run r = WalMigrateTest.run(step);
            assertEquals(0, r.exit(), String.join(" ", step) + ": " + r.out() + r.err());
            paths.add(step[step.length - 1]);
        }
        for (KeySource s : new KeySource[] {KineSource.open(k1.resolve("state.db")), WalSource.open(w2), KineSource.open(k3.resolve("state.db"))}) {
            Map<String, String> got = new TreeMap<>();
            keys(s).forEach((k, v) -> got.put(k, v.substring(v.lastIndexOf(' ') + 1)));
            assertEquals(want, got, s.describe());
        }
    }
}
