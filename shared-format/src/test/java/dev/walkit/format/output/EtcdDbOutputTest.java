package dev.walkit.format.output;

import dev.walkit.format.Fixtures;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.bbolt.BoltFile;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;
import dev.walkit.format.replay.SnapshotPrefixWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An etcd db written from a WAL reads back, through the reader every tool uses, as the revisions it was written
 * from: a real etcd's db through its WAL form and back gives the same revisions, byte for byte; a log of many
 * keys (branch pages), a value larger than a page (overflow pages), deletes (tombstones), a transaction (sub
 * revisions) and a snapshot prefix (the compaction) come back as they went in.
 */
class EtcdDbOutputTest {
    @TempDir
    Path dir;

    /** Every revision of a db as a line: main.sub, tombstone, key, create, mod, version, lease, value (hex). */
    static List<String> revisions(Path db) throws Exception {
        List<String> out = new ArrayList<>();
        try (EtcdDb d = EtcdDb.openDatabase(db)) {
            d.revisions((main, sub, tomb, page, kv) -> out.add(main + "." + sub + (tomb ? " t " : " ") + new String(kv.key(page), StandardCharsets.UTF_8)
                    + " c" + kv.createRevision() + " m" + kv.modRevision() + " v" + kv.version() + " l" + kv.lease() + " "
                    + HexFormat.of().formatHex(tomb ? new byte[0] : kv.value(page))));
            assertEquals(List.of(), d.damage(), "read back with no damage");
        }
        return out;
    }

    @Test
    void aRealEtcdDbThroughItsFormAndBackHoldsTheSameRevisions() throws Exception {
        Path original = Fixtures.path("etcd/snapshot.db");
        Path form = dir.resolve("form.wal");
        Map<Long, Long> leases;
        long compact;
        try (EtcdDb d = EtcdDb.openDatabase(original)) {
            EtcdDbWal.write(d, form);
            leases = d.leases();
            compact = d.compactRevision();
        }
        Path db = dir.resolve("db");
        EtcdDbOutput.Written w = EtcdDbOutput.write(form, db, leases);
        List<String> want = revisions(original);
        assertEquals(want, revisions(db));
        assertEquals(want.size(), w.revisions());
        assertEquals(compact, w.compactRevision());
        assertEquals(Files.size(db), w.bytes());
        try (EtcdDb d = EtcdDb.openDatabase(db)) {
            assertEquals(leases, d.leases());
            assertEquals(compact, d.compactRevision());
        }
    }

    @Test
    void branchesOverflowTombstonesTransactionsAndAPrefix() throws Exception {
        LogBuilder b = new LogBuilder();
        byte[] big = new byte[100_000];
        Arrays.fill(big, (byte) 'x');
        // The prefix: a marker at revision 10, then keys in key order at their mod revisions (two share 7).
        SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(b::add, 10, 3);
        p.append(new KeyValue(Flags.SNAPSHOT, bytes("/a"), 7, 7, 1, bytes("A"), 0));
        p.append(new KeyValue(Flags.SNAPSHOT, bytes("/b"), 3, 9, 2, bytes("B"), 0));
        p.append(new KeyValue(Flags.SNAPSHOT, bytes("/c"), 7, 7, 1, big, 0));
        p.end();
        long rev = 11;
        for (int i = 0; i < 3000; i++, rev++) {
            b.add(KeyValue.put(bytes("/registry/pods/ns/p-" + i), rev, rev, 1, bytes("{\"n\":" + i + "}"), i % 3 == 0 ? 0x6d2b8a1f0c3e0001L : 0));
        }
        // A transaction: a put and a delete at one revision.
        b.add(KeyValue.put(bytes("/a"), 7, rev, 2, bytes("A2"), 0).withFlags(Flags.TXN_CONT));
        b.add(KeyValue.delete(bytes("/b"), rev));
        rev++;
        b.add(KeyValue.delete(bytes("/registry/pods/ns/p-5"), rev));
        Path wal = LogBuilder.write(dir, "wal", b.bytes());
        Path db = dir.resolve("db");
        EtcdDbOutput.Written w = EtcdDbOutput.write(wal, db, Map.of(0x6d2b8a1f0c3e0001L, 60L));
        List<String> got = revisions(db);
        assertEquals(3 + 3000 + 3, got.size());
        assertEquals("7.0 /a c7 m7 v1 l0 41", got.get(0));
        assertTrue(got.get(1).startsWith("7.1 /c c7 m7 v1 l0 7878"), got.get(1));
        assertEquals("9.0 /b c3 m9 v2 l0 42", got.get(2));
        assertEquals((rev - 1) + ".0 /a c7 m" + (rev - 1) + " v2 l0 4132", got.get(3003));
        assertEquals((rev - 1) + ".1 t /b c0 m0 v0 l0 ", got.get(3004));
        assertEquals(rev + ".0 t /registry/pods/ns/p-5 c0 m0 v0 l0 ", got.get(3005));
        assertEquals(10, w.compactRevision());
        try (EtcdDb d = EtcdDb.openDatabase(db)) {
            assertEquals(Map.of(0x6d2b8a1f0c3e0001L, 60L), d.leases());
            assertEquals(10, d.compactRevision());
            // 3,000 keys do not fit one leaf: the key bucket's root is a branch page.
            long root = d.bolt().bucket("key").root();
            assertEquals(BoltFile.BRANCH, d.bolt().pageHeader(root)[0]);
        }
    }

    /** A db of puts at revisions 1..n, one key each, written by the writer. */
    Path dbOf(String name, int n) throws Exception {
        Path db = dir.resolve(name);
        try (dev.walkit.format.etcd.EtcdDbWriter w = dev.walkit.format.etcd.EtcdDbWriter.create(db)) {
            for (int i = 1; i <= n; i++) w.put(i, 0, bytes("/k/" + i), i, 1, bytes("v" + i), 0);
            w.finish(Map.of(), 0, -1);
        }
        return db;
    }

    /**
     * A commit the tree does not hold: the leaf of a later state of the same db (revisions 1..23) appended past the pages
     * of the earlier one (1..20), as a commit's pages are when its meta is lost. The tree's answer is not the whole one:
     * the three revisions past it are damage, named, and the salvage past the tree gives them.
     */
    @Test
    void revisionsNewerThanTheTreeInPagesItDoesNotReachAreARolledBackTree() throws Exception {
        Path older = dbOf("older", 20);
        Path newer = dbOf("newer", 23);
        long leaf;
        try (EtcdDb d = EtcdDb.openDatabase(newer)) {
            leaf = d.bolt().bucket("key").root();
            assertEquals(BoltFile.LEAF, d.bolt().pageHeader(leaf)[0]);
        }
        byte[] page = Arrays.copyOfRange(Files.readAllBytes(newer), (int) leaf * 4096, (int) leaf * 4096 + 4096);
        long id = Files.size(older) / 4096;
        java.nio.ByteBuffer.wrap(page).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, id);
        Files.write(older, page, java.nio.file.StandardOpenOption.APPEND);
        try (EtcdDb d = EtcdDb.openDatabase(older)) {
            List<String> tree = new ArrayList<>();
            d.revisions((main, sub, tomb, p, kv) -> tree.add(main + ""));
            assertEquals(20, tree.size());
            assertTrue(d.readAgain(), "the tree is not the whole answer");
            List<String> all = new ArrayList<>();
            d.revisions((main, sub, tomb, p, kv) -> all.add(main + " " + new String(kv.value(p), StandardCharsets.UTF_8)));
            assertEquals(23, all.size());
            assertEquals("23 v23", all.get(22));
            assertTrue(d.damage().stream().anyMatch(x -> x.detail().startsWith("3 revision(s) 21..23 are newer than the tree's last, 20, in pages the tree "
                    + "does not reach: a commit whose meta is lost (the tree rolled back")), d.damage().toString());
        }
    }

    @Test
    void aDamagedWalIsNotWritten() throws Exception {
        byte[] log = LogBuilder.puts(5).bytes();
        log[30] ^= 0x40;
        Path wal = LogBuilder.write(dir, "wal", log);
        Exception e = assertThrows(java.io.IOException.class, () -> EtcdDbOutput.write(wal, dir.resolve("db"), Map.of()));
        assertTrue(e.getMessage().contains("not a clean WAL"), e.getMessage());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
