package dev.walkit.recover;

import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An etcd db recovered as an etcd db: a real etcd 3.4 takes a workload (transactions of many keys, so the key bucket
 * has branch pages; a value of several pages; a delete; a compaction; a lease), `etcdctl snapshot save` writes its
 * db, `walrecover` writes DIR/db, `etcdctl snapshot restore` restores it and a real etcd serves it: at every revision
 * from the compaction on, what the source served then, and its lease at the TTL it was granted with.
 */
class EtcdDbRecoverTest {
    @TempDir
    static Path dir;
    static Path snapshot;
    /** revision → every key as the source served it at that revision. */
    static final Map<Long, List<String>> served = new TreeMap<>();
    static long compact;
    static long last;

    static List<String> lines(String ep, long rev) throws Exception {
        List<String> out = new ArrayList<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "", rev)) {
            out.add(kv.key() + " c" + kv.createRevision() + " m" + kv.modRevision() + " v" + kv.version() + " l" + kv.lease() + " "
                    + HexFormat.of().formatHex(kv.value()));
        }
        return out;
    }

    @BeforeAll
    static void source() throws Exception {
        snapshot = dir.resolve("snapshot.db");
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1)) {
            String ep = src.endpoints();
            long lease = Etcdctl.grant(ep, 900);
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/a", "v1");
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/a", "v2");
            Etcdctl.run(ep, null, "put", "/registry/leases/kube-node-lease/n1", "renew", "--lease=" + Long.toHexString(lease));
            Etcdctl.run(ep, null, "put", "/registry/pods/default/doomed", "x");
            Etcdctl.run(ep, null, "del", "/registry/pods/default/doomed");
            compact = Etcdctl.revision(ep);
            Etcdctl.run(ep, null, "compact", String.valueOf(compact));
            String value = "v".repeat(900);
            for (int t = 0; t < 5; t++) {
                StringBuilder txn = new StringBuilder("\n");
                for (int i = 0; i < 100; i++) txn.append("put /registry/pods/ns-").append(t).append("/pod-").append(i).append(' ').append(value).append(i).append('\n');
                txn.append("\n\n");
                Etcdctl.run(ep, txn.toString(), "txn");
            }
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/big", "b".repeat(30_000));
            Etcdctl.run(ep, null, "del", "/registry/pods/ns-2/pod-7");
            last = Etcdctl.revision(ep);
            for (long r = compact; r <= last; r++) served.put(r, lines(ep, r));
            Etcdctl.run(ep, null, "snapshot", "save", snapshot.toString());
        }
    }

    /** A copy of the source's db with {@code damage} done to it. */
    static Path damaged(String name, Damage damage) throws Exception {
        Path copy = dir.resolve(name + ".db");
        Files.copy(snapshot, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(copy, java.nio.file.StandardOpenOption.WRITE)) {
            damage.apply(ch);
        }
        return copy;
    }

    interface Damage {
        void apply(java.nio.channels.FileChannel ch) throws Exception;
    }

    static void zero(java.nio.channels.FileChannel ch, long page) throws Exception {
        ch.write(java.nio.ByteBuffer.allocate(4096), page * 4096);
    }

    /** The key bucket's root page of the source's db (a branch page: the bucket has many leaves). */
    static long keyRoot() throws Exception {
        try (dev.walkit.format.etcd.EtcdDb d = dev.walkit.format.etcd.EtcdDb.openDatabase(snapshot)) {
            return d.bolt().bucket("key").root();
        }
    }

    /** walrecover's run of a damaged db (salvage), restored and served: what etcd serves at each revision the source served. */
    static void recoversExactly(Path db, String said) throws Exception {
        Path out = dir.resolve("out-" + db.getFileName());
        WalRecoverTest.Run r = WalRecoverTest.run(db.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(said), r.out());
        try (EtcdCluster etcd = EtcdCluster.restored(out.resolve("db"), dir.resolve("restored-" + db.getFileName()))) {
            String ep = etcd.endpoints();
            for (Map.Entry<Long, List<String>> e : served.entrySet()) assertEquals(e.getValue(), lines(ep, e.getKey()), "at revision " + e.getKey());
        }
    }

    @Test
    void bothMetasDamagedTheTreeIsReadFromItsNewestWholeRoot() throws Exception {
        Path db = damaged("metas", ch -> {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), 16 + 56);
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), 4096 + 16 + 56);
        });
        recoversExactly(db, "no valid meta page: the tree is read from page");
    }

    @Test
    void theKeyBucketsRootPageZeroedEveryLeafIsReadPastIt() throws Exception {
        long root = keyRoot();
        Path db = damaged("root", ch -> zero(ch, root));
        recoversExactly(db, "could not be read");
    }

    @Test
    void cutInHalfWhatIsLeftIsServedAndWhatIsLostIsSaid() throws Exception {
        Path db = damaged("half", ch -> ch.truncate(Files.size(snapshot) / 2));
        Path out = dir.resolve("out-half");
        WalRecoverTest.Run r = WalRecoverTest.run(db.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("cannot be known from what is left"), r.out());
        try (EtcdCluster etcd = EtcdCluster.restored(out.resolve("db"), dir.resolve("restored-half"))) {
            // Every key served is one the source served at that revision, as it was then.
            List<String> now = lines(etcd.endpoints(), 0);
            long rev = Etcdctl.revision(etcd.endpoints());
            assertTrue(!now.isEmpty() && served.get(rev).containsAll(now), now.size() + " keys at " + rev);
        }
    }

    @Test
    void aDamagedFreelistIsDamageAndTheRecoveredDbOpens() throws Exception {
        // etcd 3.4 writes no freelist (NoFreelistSync); walrecover's own db has one, at page 2.
        Path out = dir.resolve("out-freelist");
        assertEquals(0, WalRecoverTest.run(snapshot.toString(), "--out", out.toString()).exit());
        Path db = dir.resolve("freelist.db");
        Files.copy(out.resolve("db"), db);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(db, java.nio.file.StandardOpenOption.WRITE)) {
            zero(ch, 2);
        }
        WalRecoverTest.Run r = WalRecoverTest.run(db.toString(), "--out", dir.resolve("out-freelist-2").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("bbolt damage: page 2 at offset 8192: freelist page 2: its header says page 0, flags 0x00, not a freelist page"), r.out());
        recoversExactly(db, "invalid freelist page");
    }

    /** etcdutl 3.5's --bump-revision N --mark-compacted: the store's revision N past the recovered one, compacted there. */
    @Test
    void aBumpedRevisionIsTheStoresRevisionAndTheHistoryBeforeItIsCompacted() throws Exception {
        Path out = dir.resolve("out-bumped");
        WalRecoverTest.Run usage = WalRecoverTest.run(snapshot.toString(), "--bump-revision", "1000", "--out", out.toString());
        assertEquals(2, usage.exit(), usage.out() + usage.err());
        assertTrue(usage.err().contains("--bump-revision needs --mark-compacted"), usage.err());
        WalRecoverTest.Run wal = WalRecoverTest.run(snapshot.toString(), "--bump-revision", "1000", "--mark-compacted", "--out-format", "wal", "--out", out.toString());
        assertEquals(2, wal.exit(), wal.out() + wal.err());
        WalRecoverTest.Run r = WalRecoverTest.run(snapshot.toString(), "--bump-revision", "1000", "--mark-compacted", "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("compact revision " + (last + 1000) + " (its revision, 1000 past the recovered " + last + ")"), r.out());
        try (EtcdCluster etcd = EtcdCluster.restored(out.resolve("db"), dir.resolve("restored-bumped"))) {
            String ep = etcd.endpoints();
            assertEquals(last + 1000, Etcdctl.revision(ep));
            assertEquals(served.get(last), lines(ep, 0), "the keys as they were, at their own revisions");
            Exception before = assertThrows(IllegalStateException.class, () -> Etcdctl.get(ep, "", last));
            assertTrue(before.getMessage().contains("compacted"), before.getMessage());
            // The next write follows the bumped revision.
            Etcdctl.run(ep, null, "put", "/registry/configmaps/default/after", "x");
            assertEquals(last + 1001, Etcdctl.revision(ep));
        }
    }

    /** The last revision of the tree the db's meta in force names, when it reads whole; -1 otherwise. */
    static long treeLast(Path db) throws Exception {
        try (dev.walkit.format.etcd.EtcdDb d = dev.walkit.format.etcd.EtcdDb.openDatabase(db)) {
            long[] last = {-1};
            d.revisions((main, sub, t, p, kv) -> last[0] = Math.max(last[0], main));
            return d.damage().isEmpty() && !d.readAgain() ? last[0] : -1;
        }
    }

    /**
     * A tree rolled back, from a real etcd: killed (SIGKILL) after two commits, its member db's newer meta damaged. The
     * older meta's tree lacks the last commit, whose pages are still in the file: walverify names the revisions found past
     * the tree (damage, exit 3), and the recovered db serves the last commit's keys as the source did.
     */
    @Test
    void aTreeRolledBackByItsNewerMetaDamagedIsNamedAndItsLastCommitRecovered() throws Exception {
        Path member;
        long first;
        long second;
        List<String> want;
        EtcdCluster etcd = EtcdCluster.start(dir.resolve("crash"), 1);
        try {
            String ep = etcd.endpoints();
            member = dir.resolve("crash").resolve("etcd-m0/member/snap/db");
            // Values of 2 KB: the key bucket has pages of its own (bbolt keeps a bucket under a quarter page inline in its parent).
            String big = "x".repeat(2048);
            for (int i = 0; i < 10; i++) Etcdctl.run(ep, null, "put", "/registry/pods/crash/p-" + i, big + i);
            first = Etcdctl.revision(ep);
            dev.walkit.testdata.Await.until("the db to hold revision " + first, () -> treeLast(member) == first);
            // One transaction, so one commit: the last one before the kill.
            Etcdctl.run(ep, "\nput /registry/pods/crash/last-a A" + big + "\nput /registry/pods/crash/last-b B" + big + "\n\n\n", "txn");
            second = Etcdctl.revision(ep);
            dev.walkit.testdata.Await.until("the db to hold revision " + second, () -> treeLast(member) == second);
            want = lines(ep, 0);
            etcd.kill(0);
        } finally {
            etcd.close();
        }
        Path db = dir.resolve("rolled-back.db");
        Files.copy(member, db);
        int newer;
        try (dev.walkit.format.bbolt.BoltFile b = dev.walkit.format.bbolt.BoltFile.open(db)) {
            newer = b.metas().get(0).txid() > b.metas().get(1).txid() ? 0 : 1;
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(db, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0x5a}), newer * 4096L + 64);
        }
        WalVerifyRun v = verify(db);
        assertEquals(3, v.exit(), v.out());
        assertTrue(v.out().contains("1 revision(s) " + second + ".." + second + " are newer than the tree's last, " + first
                + ", in pages the tree does not reach: a commit whose meta is lost (the tree rolled back"), v.out());
        Path out = dir.resolve("out-rolled-back");
        WalRecoverTest.Run r = WalRecoverTest.run(db.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        try (EtcdCluster restored = EtcdCluster.restored(out.resolve("db"), dir.resolve("restored-rolled-back"))) {
            assertEquals(want, lines(restored.endpoints(), 0), "the last commit's keys, as the source served them");
        }
    }

    record WalVerifyRun(int exit, String out) {
    }

    /** walverify of {@code db} (through walrecover's dry run's account: the same pass), its text and exit code. */
    static WalVerifyRun verify(Path db) {
        WalRecoverTest.Run r = WalRecoverTest.run(db.toString(), "--dry-run", "--policy", "absolute");
        return new WalVerifyRun(r.exit(), r.out() + r.err());
    }

    /** bbolt's own check (tx.Check over every page: benchmarks/bbolt-check, which scripts/bench-bbolt builds) of the db written. */
    @Test
    void bboltsOwnCheckFindsTheWrittenDbWhole() throws Exception {
        Path check = Path.of("..", "target", "bench", "bbolt-check").toAbsolutePath().normalize();
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(check),
                "bbolt's check is not built at " + check + " (scripts/bench-bbolt builds it from Debian's bbolt sources)");
        Path out = dir.resolve("out-check");
        assertEquals(0, WalRecoverTest.run(snapshot.toString(), "--out", out.toString()).exit());
        Process p = new ProcessBuilder(check.toString(), out.resolve("db").toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
        assertEquals("OK", said);
        assertEquals(0, p.exitValue());
    }

    @Test
    void aRecoveredEtcdDbIsRestoredAndServedAtEveryRevisionAsTheSource() throws Exception {
        Path out = dir.resolve("out");
        WalRecoverTest.Run r = WalRecoverTest.run(snapshot.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(Files.isRegularFile(out.resolve("db")), r.out());
        assertTrue(r.out().contains("etcdctl snapshot restore " + out.resolve("db") + " --skip-hash-check"), r.out());
        try (EtcdCluster etcd = EtcdCluster.restored(out.resolve("db"), dir.resolve("restored"))) {
            String ep = etcd.endpoints();
            assertEquals(last, Etcdctl.revision(ep));
            for (Map.Entry<Long, List<String>> e : served.entrySet()) assertEquals(e.getValue(), lines(ep, e.getKey()), "at revision " + e.getKey());
            // Below the compaction, etcd says compacted, as the source did.
            Exception below = assertThrows(IllegalStateException.class, () -> Etcdctl.get(ep, "", compact - 1));
            assertTrue(below.getMessage().contains("compacted"), below.getMessage());
            long lease = Etcdctl.get(ep, "/registry/leases/", 0).get(0).lease();
            assertEquals(900, Etcdctl.grantedTtl(ep, lease));
        }
    }
}
