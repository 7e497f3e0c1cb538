package dev.walkit.migrate;

import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Keys of random bytes (every byte value: NUL, newline, quotes, bytes that are not UTF-8) through every migration
 * path, each store read back and the real servers asked: WAL → kine (the real kine serves it) → etcd (a real etcd
 * serves it) → its snapshot db → WAL, and WAL → etcd directly; at each step the keys and values are the source's,
 * byte for byte.
 */
class RandomKeysTest {
    @TempDir
    Path dir;

    static final byte[] PREFIX = "/fuzz/".getBytes(StandardCharsets.US_ASCII);

    /** 80 keys of /fuzz/ and 1 to 32 random bytes, random values; every seventh deleted again. */
    static Path source(Path dir, long seed) throws Exception {
        Random rnd = new Random(seed);
        LogBuilder log = new LogBuilder();
        Set<String> seen = new HashSet<>();
        long rev = 1;
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        while (keys.size() < 80) {
            byte[] k = new byte[PREFIX.length + 1 + rnd.nextInt(32)];
            System.arraycopy(PREFIX, 0, k, 0, PREFIX.length);
            for (int i = PREFIX.length; i < k.length; i++) k[i] = (byte) rnd.nextInt(256);
            if (!seen.add(HexFormat.of().formatHex(k))) continue;
            byte[] v = new byte[rnd.nextInt(64)];
            rnd.nextBytes(v);
            log.add(KeyValue.put(k, rev, rev, 1, v, 0));
            keys.add(k);
            rev++;
        }
        for (int i = 0; i < keys.size(); i += 7) log.add(KeyValue.delete(keys.get(i), rev++));
        return LogBuilder.write(dir, "wal", log.bytes());
    }

    /** key (hex) → value (hex), of the keys under /fuzz/ (the real kine adds its own /registry/health when it serves). */
    static Map<String, String> of(KeySource s) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (s) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                if (!java.util.Arrays.equals(k.key(), 0, PREFIX.length, PREFIX, 0, PREFIX.length)) continue;
                m.put(HexFormat.of().formatHex(k.key()), HexFormat.of().formatHex(k.value()));
            }
        }
        return m;
    }

    static Map<String, String> served(String endpoint) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(endpoint, "/fuzz/", 0)) m.put(HexFormat.of().formatHex(kv.keyBytes()), HexFormat.of().formatHex(kv.value()));
        return m;
    }

    static void ok(String... args) {
        WalMigrateTest.Run r = WalMigrateTest.run(args);
        assertEquals(0, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
    }

    @Test
    void randomByteKeysSurviveEveryMigrationPathByteForByte() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path wal = source(dir, 41);
        Map<String, String> want = of(WalSource.open(wal));
        assertEquals(80 - 12, want.size());

        Path k1 = dir.resolve("k1");
        ok("wal", "--wal", wal.toString(), "--out-kine", k1.toString());
        assertEquals(want, of(KineSource.open(k1.resolve("state.db"))), "WAL → kine, read back");
        try (KineServer k = KineServer.start(k1.resolve("state.db"), dir.resolve("kine.log"))) {
            assertEquals(want, served(k.endpoint()), "what the real kine serves");
        }
        try (EtcdCluster a = EtcdCluster.start(dir.resolve("a"), 1); EtcdCluster b = EtcdCluster.start(dir.resolve("b"), 1)) {
            ok("kine", "--sqlite", k1.resolve("state.db").toString(), "--endpoints", a.endpoints());
            assertEquals(want, served(a.endpoints()), "kine → etcd, what etcd serves");
            Path w2 = dir.resolve("w2");
            ok("etcd", "--source-endpoints", a.endpoints(), "--out-wal", w2.toString());
            assertEquals(want, of(WalSource.open(w2)), "etcd → WAL");
            Path snapshot = dir.resolve("snapshot.db");
            Etcdctl.run(a.endpoints(), null, "snapshot", "save", snapshot.toString());
            Path k3 = dir.resolve("k3");
            ok("etcd-db", "--db", snapshot.toString(), "--out-kine", k3.toString());
            assertEquals(want, of(KineSource.open(k3.resolve("state.db"))), "etcd db → kine");
            Path w4 = dir.resolve("w4");
            ok("etcd-db", "--db", snapshot.toString(), "--out-wal", w4.toString());
            assertEquals(want, of(WalSource.open(w4)), "etcd db → WAL");
            ok("wal", "--wal", wal.toString(), "--endpoints", b.endpoints());
            assertEquals(want, served(b.endpoints()), "WAL → etcd, what etcd serves");
        }
    }
}
