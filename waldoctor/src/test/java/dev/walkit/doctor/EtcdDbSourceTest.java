package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.format.KeyValue;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real etcd 3.4 takes a workload (puts, deletes, transactions, leases, a compaction), {@code etcdctl snapshot
 * save} writes its db, and waldoctor's index of that file answers every revision from the compact revision to
 * the last as {@code etcdctl get --rev R} does from the live member; the leases as {@code lease timetolive}.
 */
class EtcdDbSourceTest {
    @TempDir
    static Path dir;
    static EtcdCluster etcd;
    static String ep;
    static long compact;
    static long last;
    static Path snapshot;
    static final Map<Long, Long> LEASES = new TreeMap<>();

    static String etcdctl(String stdin, String... args) throws Exception {
        return Etcdctl.run(ep, stdin, args);
    }

    static long grant(long ttl) throws Exception {
        long id = Etcdctl.grant(ep, ttl);
        LEASES.put(id, ttl);
        return id;
    }

    @BeforeAll
    static void workload() throws Exception {
        etcd = EtcdCluster.start(dir, 1);
        ep = etcd.endpoints();
        etcdctl(null, "put", "/registry/configmaps/default/a", "v1");
        etcdctl(null, "put", "/registry/configmaps/default/b", "w1");
        long l1 = grant(600);
        etcdctl(null, "put", "/registry/events/default/e1", "{\"reason\":\"Started\"}", "--lease=" + Long.toHexString(l1));
        etcdctl("\nput /registry/pods/default/p1 spec1\nput /registry/pods/default/p2 spec2\n\n\n", "txn");
        etcdctl(null, "put", "/registry/configmaps/default/a", "v2");
        etcdctl(null, "del", "/registry/configmaps/default/b");
        etcdctl(null, "put", "/registry/configmaps/default/c", "x1");
        compact = Etcdctl.revision(ep);
        etcdctl(null, "put", "/registry/configmaps/default/a", "v3");
        etcdctl(null, "compact", String.valueOf(compact));
        etcdctl(null, "put", "/registry/configmaps/default/b", "w2");
        etcdctl(null, "del", "/registry/events/", "--prefix");
        long l2 = grant(300);
        etcdctl("\nput /registry/leases/kube-system/l1 holder --lease=" + Long.toHexString(l2) + "\ndel /registry/pods/default/p1\n\n\n", "txn");
        etcdctl(null, "put", "/registry/configmaps/default/c", "x2");
        etcdctl(null, "put", "/registry/secrets/default/s1", "hunter2");
        // Enough keys that the key bucket is a tree of branch and leaf pages, and a value of several pages
        // (an overflow page run).
        String pad = "x".repeat(200);
        for (int t = 0; t < 8; t++) {
            StringBuilder txn = new StringBuilder("\n");
            for (int i = 0; i < 100; i++) txn.append("put /registry/events/ns").append(t).append("/ev-").append(i).append(' ').append(pad).append(i).append('\n');
            etcdctl(txn.append("\n\n").toString(), "txn");
        }
        etcdctl("y".repeat(20_000), "put", "/registry/configmaps/kube-system/big");
        // Runs the reader maps instead of reading through its 64 KiB windows: one of 25 pages, and shorter runs (leaves of
        // two or three 24,000-byte values), some crossing a window's boundary. Each value says where its bytes are.
        etcdctl(distinct(100_000, 'A'), "put", "/registry/configmaps/kube-system/huge");
        for (int i = 0; i < 8; i++) etcdctl(distinct(24_000, (char) ('a' + i)), "put", "/registry/configmaps/kube-system/mid-" + i);
        etcdctl(null, "del", "/registry/events/ns3/", "--prefix");
        last = Etcdctl.revision(ep);
        snapshot = dir.resolve("snapshot.db");
        etcdctl(null, "snapshot", "save", snapshot.toString());
    }

    /** {@code n} characters that say where they are: {@code c} and the position, over and over. */
    private static String distinct(int n, char c) {
        StringBuilder b = new StringBuilder(n);
        while (b.length() < n) b.append(c).append(b.length()).append(';');
        return b.substring(0, n);
    }

    @AfterAll
    static void stop() {
        if (etcd != null) etcd.close();
    }

    /** etcdctl's answer: key → (value, create, mod, version, lease). */
    static Map<String, List<Object>> served(long rev) throws Exception {
        Map<String, List<Object>> m = new TreeMap<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "/", rev)) {
            m.put(kv.key(), List.of(kv.valueText(), kv.createRevision(), kv.modRevision(), kv.version(), kv.lease()));
        }
        return m;
    }

    static Map<String, List<Object>> answered(StoreHistory x, long rev) {
        Map<String, List<Object>> m = new TreeMap<>();
        for (String k : TextKeys.liveKeys(x, "/", rev)) {
            KeyValue kv = TextKeys.get(x, k, rev);
            m.put(k, List.of(new String(kv.value(), StandardCharsets.UTF_8), kv.createRevision(), kv.modRevision(), kv.version(), kv.lease()));
        }
        return m;
    }

    @Test
    void everyRevisionFromTheCompactionOnIsAnsweredAsEtcdAnswersIt() throws Exception {
        assertTrue(last > compact + 5, "revisions after the compaction: " + compact + ".." + last);
        try (StoreHistory x = Pass.history(snapshot, null)) {
            assertEquals(dev.walkit.format.account.Store.Kind.ETCD_DB, x.source().kind());
            assertEquals(compact, x.compactRevision(), "the compact revision is the db's");
            assertEquals(last, x.revision());
            for (long r = compact; r <= last; r++) assertEquals(served(r), answered(x, r), "revision " + r);
            assertEquals(20_000, TextKeys.get(x, "/registry/configmaps/kube-system/big", last).value().length);
            assertEquals(distinct(100_000, 'A'), new String(TextKeys.get(x, "/registry/configmaps/kube-system/huge", last).value(), StandardCharsets.UTF_8));
            assertTrue(TextKeys.liveCount(x, "/registry/events/", last) == 700, "800 events put, 100 deleted");
            assertTrue(x.account().findings().isEmpty(), "etcd's own history breaks no rule of the WAL's: " + x.account().findings());
            assertTrue(x.source().etcd().damage().isEmpty(), x.source().etcd().damage().toString());
            // Before the compaction there is nothing to answer with: the history is gone.
            assertNull(!x.ever(dev.walkit.cli.KeyText.unquote("/registry/configmaps/default/b")) ? null : TextKeys.get(x, "/registry/configmaps/default/b", compact - 1),
                    "b was deleted before the compaction: the db does not keep it");
        }
    }

    @Test
    void theKeyBucketIsATreeOfBranchLeafAndOverflowPages() throws Exception {
        // What the equality above walked: not only inline buckets.
        try (dev.walkit.format.etcd.EtcdDb db = dev.walkit.format.etcd.EtcdDb.open(snapshot)) {
            dev.walkit.format.bbolt.BoltFile b = db.bolt();
            var key = b.bucket("key");
            assertTrue(key.root() != 0, "the key bucket has pages of its own");
            assertEquals(dev.walkit.format.bbolt.BoltFile.BRANCH, b.pageHeader(key.root())[0], "its root is a branch page");
            boolean overflow = false;
            boolean longRun = false;
            boolean crossing = false;
            StringBuilder runs = new StringBuilder();
            int ps = b.meta().pageSize();
            long window = dev.walkit.format.bbolt.BoltFile.WINDOW;
            for (long id = 2; id < b.size() / ps; id++) {
                int[] h = b.pageHeader(id);
                if (h[0] != dev.walkit.format.bbolt.BoltFile.LEAF || h[1] == 0) continue;
                overflow = true;
                runs.append(id).append('+').append(h[1]).append(' ');
                long end = (id + h[1] + 1) * ps;
                if (end - id * ps > window) longRun = true;
                else if (id * ps / window != (end - 1) / window) crossing = true;
            }
            assertTrue(overflow, "a leaf page with overflow pages (the 20,000-byte value)");
            assertTrue(longRun, "a run longer than a window (the 100,000-byte value)");
            assertTrue(crossing, "a run that crosses a window's boundary (a leaf of 24,000-byte values): " + runs);
            assertEquals(dev.walkit.format.etcd.EtcdDb.Trailer.SHA256_MATCHES, db.trailer());
        }
    }

    @Test
    void diagnoseAndTheShellNameTheDbAndItsLeases() throws Exception {
        WalDoctorTest.Run d = WalDoctorTest.run("diagnose", snapshot.toString());
        assertEquals(0, d.exit(), d.out() + d.err());
        assertTrue(d.out().contains(snapshot + ": etcd db (bbolt page size 4096, txid "), d.out());
        assertTrue(d.out().contains("compact revision " + compact), d.out());
        assertTrue(d.out().contains("none: the log is healthy"), d.out());
        for (Map.Entry<Long, Long> e : LEASES.entrySet()) {
            WalDoctorTest.Run l = WalDoctorTest.run("leases", snapshot.toString());
            assertTrue(l.out().contains("lease " + String.format("%016x", e.getKey()) + " (" + e.getKey() + "): TTL " + e.getValue() + "s"), l.out());
        }
        WalDoctorTest.Run h = WalDoctorTest.run("hexdump", snapshot.toString(), "0");
        assertEquals(1, h.exit(), h.out() + h.err());
        assertTrue((h.out() + h.err()).contains("hexdump reads a WAL's bytes; " + snapshot + " is an etcd db"), h.out() + h.err());
    }

    @Test
    void theLeasesAreTheGrantedOnesWithTheirTtls() throws Exception {
        try (StoreHistory x = Pass.history(snapshot, null)) {
            assertEquals(LEASES, x.source().etcd().leases());
            for (Map.Entry<Long, Long> e : LEASES.entrySet()) assertEquals(e.getValue(), Etcdctl.grantedTtl(ep, e.getKey()));
        }
    }

    @Test
    void aStoppedMembersDataDirectoryIsReadFromItsDb() throws Exception {
        Path copy = dir.resolve("copy-of-data");
        Path data = dir.resolve("etcd-m0");
        assertTrue(Files.isRegularFile(data.resolve("member/snap/db")), "etcd's layout: " + data);
        // The live member's db is copied (etcd holds it open and locked); the copy is a stopped member's.
        Files.createDirectories(copy.resolve("member/snap"));
        Files.copy(data.resolve("member/snap/db"), copy.resolve("member/snap/db"));
        try (StoreHistory x = Pass.history(copy, null)) {
            assertEquals(copy.resolve("member/snap/db"), x.source().file());
            assertEquals(served(last), answered(x, last));
        }
    }
}
