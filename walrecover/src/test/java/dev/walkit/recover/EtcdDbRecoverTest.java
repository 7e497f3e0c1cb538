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
