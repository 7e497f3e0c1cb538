package dev.walkit.verify;

import dev.walkit.format.bbolt.BoltFile;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No "healthy" on a damaged etcd db: a member's db (no snapshot trailer to tell a change: what a data directory
 * holds) from a real etcd 3.4, with branch, leaf and overflow pages, damaged one page kind at a time (zeroed, a header
 * byte flipped, an element's size flipped, the file cut short): each is damage (exit 3) or not a database (exit 4).
 */
class EtcdDbDamageSweepTest {
    @TempDir
    static Path dir;

    static Path clean;
    static int pageSize = 4096;

    @BeforeAll
    static void aMembersDb() throws Exception {
        try (EtcdCluster e = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            String ep = e.endpoints();
            for (int t = 0; t < 6; t++) {
                StringBuilder ops = new StringBuilder("\n");
                for (int i = 0; i < 100; i++) ops.append("put /registry/configmaps/ns/cm-").append(t).append('-').append(i).append(" {\"v\":").append(i).append("}\n");
                Etcdctl.run(ep, ops + "\n\n", "txn");
            }
            for (int i = 0; i < 3; i++) Etcdctl.run(ep, "x".repeat(20_000 + i), "put", "/registry/configmaps/ns/big-" + i);
            Etcdctl.run(ep, null, "snapshot", "save", dir.resolve("snap.db").toString());
        }
        // A member's db: the snapshot without etcdctl's 32-byte SHA-256 trailer, whole pages only.
        clean = dir.resolve("member.db");
        byte[] b = Files.readAllBytes(dir.resolve("snap.db"));
        Files.write(clean, java.util.Arrays.copyOf(b, b.length - 32));
        WalVerifyTest.Run ok = WalVerifyTest.run("--level", "semantic", clean.toString());
        assertEquals(0, ok.exit(), ok.out());
    }

    /** Page id → kind ("branch", "leaf", "overflow") of the key bucket's tree, found by bbolt's own page headers. */
    static Map<String, Long> pagesByKind() throws Exception {
        Map<String, Long> out = new LinkedHashMap<>();
        try (BoltFile f = BoltFile.open(clean)) {
            BoltFile.BucketRef key = f.bucket("key");
            TreeSet<Long> leaves = new TreeSet<>();
            f.walk(key, (p, k, kl, v, vl, bucket) -> leaves.add(p.getLong(0)));
            int[] root = f.pageHeader(key.root());
            out.put("branch", root[0] == 0x01 ? key.root() : -1L);
            out.put("leaf", leaves.first());
            for (long l : leaves) {
                int[] h = f.pageHeader(l);
                if (h[1] > 2) {
                    out.put("overflow", l + 2); // a page inside a value spread over overflow pages
                    break;
                }
            }
        }
        return out;
    }

    Path damaged(String name, java.util.function.Consumer<byte[]> change) throws Exception {
        byte[] b = Files.readAllBytes(clean);
        change.accept(b);
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    void notHealthy(Path p, String what) {
        WalVerifyTest.Run r = WalVerifyTest.run(p.toString());
        assertNotEquals(0, r.exit(), what + ": " + r.out());
        assertTrue(r.exit() == 3 || r.exit() == 4, what + ": exit " + r.exit() + "\n" + r.out() + r.err());
    }

    @Test
    void everyPageKindDamagedIsNeverHealthy() throws Exception {
        Map<String, Long> kinds = pagesByKind();
        assertTrue(kinds.get("branch") > 0 && kinds.containsKey("overflow"), kinds.toString());
        for (Map.Entry<String, Long> k : kinds.entrySet()) {
            long page = k.getValue();
            int at = (int) (page * pageSize);
            notHealthy(damaged(k.getKey() + "-zeroed", b -> java.util.Arrays.fill(b, at, at + pageSize, (byte) 0)), k.getKey() + " page " + page + " zeroed");
            if (!k.getKey().equals("overflow")) {
                notHealthy(damaged(k.getKey() + "-flags", b -> b[at + 8] ^= 0x40), k.getKey() + " page " + page + ": a flags bit flipped");
                notHealthy(damaged(k.getKey() + "-count", b -> b[at + 11] ^= 0x10), k.getKey() + " page " + page + ": its element count changed");
                // The first element's key size (a leaf's at +8 of the element, a branch's at +4).
                int ksize = at + 16 + (k.getKey().equals("leaf") ? 8 : 4);
                notHealthy(damaged(k.getKey() + "-ksize", b -> b[ksize + 1] ^= 0x7f), k.getKey() + " page " + page + ": an element's key size changed");
            }
        }
        for (int meta = 0; meta < 2; meta++) {
            int at = meta * pageSize;
            notHealthy(damaged("meta" + meta, b -> java.util.Arrays.fill(b, at, at + pageSize, (byte) 0)), "meta page " + meta + " zeroed");
        }
    }

    @Test
    void aFileCutShortIsNeverHealthy() throws Exception {
        byte[] b = Files.readAllBytes(clean);
        for (int pages : new int[] {1, 3}) {
            Path p = dir.resolve("cut-" + pages);
            Files.write(p, java.util.Arrays.copyOf(b, b.length - pages * pageSize));
            notHealthy(p, "the last " + pages + " page(s) cut");
        }
        Path half = dir.resolve("cut-half");
        try (RandomAccessFile f = new RandomAccessFile(half.toFile(), "rw")) {
            f.write(b, 0, b.length - pageSize / 2);
        }
        notHealthy(half, "half a page cut");
    }
}
