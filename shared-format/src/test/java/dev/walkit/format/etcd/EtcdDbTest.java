package dev.walkit.format.etcd;

import dev.walkit.format.Fixtures;
import dev.walkit.format.bbolt.BoltDamage;
import dev.walkit.format.bbolt.BoltFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcd's db read from the format: testdata/fixtures/etcd/snapshot.db (a real etcd 3.4's, made by make.sh beside
 * it: 5 pages of 4096 bytes and etcdctl's SHA-256; meta 0 has txid 12, meta 1 txid 11, both root page 3 (the
 * snapshot's copy rewrote the tree); every bucket inline in its root). Each damage test changes a named byte of a copy and asserts the
 * exact finding.
 */
class EtcdDbTest {
    static final Path DB = Fixtures.path("etcd/snapshot.db");
    static final long LEASE_600 = 0x07c1a23cf75b1f08L;
    static final long LEASE_300 = 0x07c1a23cf75b1f13L;
    static final int PAGE = 4096;

    @TempDir
    Path dir;

    static List<String> revisions(EtcdDb db) throws Exception {
        List<String> out = new ArrayList<>();
        db.revisions((main, sub, tomb, page, kv) -> out.add(main + "." + sub + (tomb ? " t " : " ") + new String(kv.key(page), StandardCharsets.UTF_8)));
        return out;
    }

    Path damaged(String name, java.util.function.Consumer<byte[]> change) throws Exception {
        byte[] b = Files.readAllBytes(DB);
        change.accept(b);
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    @Test
    void theFixtureReadsAsEtcdWroteIt() throws Exception {
        assertTrue(BoltFile.sniff(DB));
        try (EtcdDb db = EtcdDb.open(DB)) {
            assertEquals(0, db.bolt().meta().slot());
            assertEquals(12, db.bolt().meta().txid());
            assertEquals(8, db.compactRevision());
            assertEquals(20, db.consistentIndex());
            assertEquals(Map.of(LEASE_600, 600L, LEASE_300, 300L), db.leases());
            assertEquals(EtcdDb.Trailer.SHA256_MATCHES, db.trailer());
            assertEquals(List.of(), db.damage());
            assertEquals(List.of("4.0 /registry/events/default/e1", "5.0 /registry/pods/default/p1", "5.1 /registry/pods/default/p2",
                    "6.0 /registry/configmaps/default/a", "8.0 /registry/configmaps/default/c", "9.0 /registry/configmaps/default/a",
                    "10.0 /registry/configmaps/default/b", "11.0 t /registry/events/default/e1", "12.0 /registry/leases/kube-system/l1",
                    "12.1 t /registry/pods/default/p1", "13.0 /registry/configmaps/default/c", "14.0 /registry/secrets/default/s1"), revisions(db));
        }
    }

    @Test
    void replayedAsMadeIsReplayedFromItsWalForm() throws Exception {
        // walverify replays the WAL form as it is made (no file); waldoctor writes it and replays the file: the same state.
        try (EtcdDb db = EtcdDb.open(DB)) {
            var direct = dev.walkit.format.replay.FormReplay.run(sink -> EtcdDbWal.emit(db, sink));
            Path wal = dir.resolve("wal");
            EtcdDbWal.write(db, wal);
            try (dev.walkit.format.WalFile f = dev.walkit.format.WalFile.open(wal, dev.walkit.format.ReaderOptions.defaults().maxRecLen())) {
                var fromFile = dev.walkit.format.replay.Replay.run(f, dev.walkit.format.ReaderOptions.defaults(),
                        dev.walkit.format.replay.Replayer.Options.defaults(), null).state();
                assertEquals(fromFile.revision(), direct.revision());
                assertEquals(fromFile.compactRevision(), direct.compactRevision());
                assertEquals(8, direct.compactRevision());
                assertEquals(fromFile.transactions(), direct.transactions());
                assertEquals(fromFile.firstRevision(), direct.firstRevision());
                assertEquals(List.of(), direct.findings());
                assertEquals(fromFile.keys().liveCount(), direct.liveKeys());
                assertEquals(fromFile.keys().tombstoneCount(), direct.tombstones());
                List<String> a = new ArrayList<>();
                for (var k : fromFile.keys().sorted()) a.add(new String(k.key(), StandardCharsets.UTF_8) + " " + k.live());
                assertEquals(8, a.size());
            }
        }
    }

    @Test
    void aBadMetaChecksumFallsBackToTheOtherMetaAndSaysSo() throws Exception {
        // Meta 0's txid (page 0, offset 16 + 48) changed: its checksum no longer holds; meta 1 (txid 11) is in force.
        Path p = damaged("meta0", b -> b[64] ^= 0x40);
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(1, db.bolt().meta().slot());
            assertEquals(11, db.bolt().meta().txid());
            BoltDamage d = db.damage().get(0);
            assertEquals(0, d.offset());
            assertTrue(d.detail().matches("meta page 0: checksum 544d23f7487b2a69, the bytes give [0-9a-f]{16}"), d.detail());
            // Meta 1 names the same root: the history reads whole.
            assertEquals(3, db.bolt().meta().rootPage());
            assertEquals(12, revisions(db).size());
            // And the trailer still covers the page changed.
            assertTrue(db.damage().stream().anyMatch(x -> x.detail().startsWith("the snapshot's SHA-256")), db.damage().toString());
        }
    }

    @Test
    void bothMetasBadTheTreeIsReadFromTheRootPageAMetaWouldName() throws Exception {
        Path p = damaged("metas", b -> {
            b[64] ^= 1;
            b[PAGE + 64] ^= 1;
        });
        try (EtcdDb db = EtcdDb.open(p)) {
            assertNull(db.bolt().meta());
            assertEquals(3, db.bolt().rootPage());
            assertEquals(12, revisions(db).size(), "the whole history, from the tree under page 3");
            assertEquals(false, db.readAgain());
            assertEquals(new BoltDamage(3, 3 * PAGE, "no valid meta page: the tree is read from page 3, of the 2 page(s) that may be the root bucket's "
                    + "the one whose key bucket reads whole to the newest revision (14)"), db.damage().get(2));
            assertEquals(8, db.compactRevision(), "the meta bucket, under the same root");
        }
    }

    @Test
    void aTruncatedFileLosesThePagesPastItsEnd() throws Exception {
        Path p = dir.resolve("truncated");
        Files.write(p, java.util.Arrays.copyOf(Files.readAllBytes(DB), 3 * PAGE));
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(List.of(), revisions(db), "the tree: its root is past the end");
            // Page 2, the one page left past the metas, is an older root bucket's page (its key bucket inline): no leaf of
            // the key bucket is left to read past the tree.
            assertEquals(false, db.readAgain());
            assertEquals(new BoltDamage(-1, 3 * PAGE, "the file ends at 12288 bytes, 3 pages, but its meta's high-water mark is page 5: it was cut short (bbolt refuses it)"),
                    db.damage().get(0));
            assertEquals(new BoltDamage(3, 3 * PAGE, "page 3 is past the end of the file (12288 bytes, 3 pages)"), db.damage().get(1));
            assertEquals("no 'key' bucket: not an etcd v3 database, or its root page is damaged", db.damage().get(2).detail());
            assertEquals(EtcdDb.Trailer.NONE, db.trailer());
        }
    }

    @Test
    void aPageThatIsNeitherBranchNorLeafIsReportedByItsNumberAndOffset() throws Exception {
        Path p = damaged("flags", b -> b[3 * PAGE + 8] = 0x00);
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(List.of(), revisions(db));
            assertEquals(new BoltDamage(3, 3 * PAGE, "page 3: flags 0x00, not a branch or leaf page"), db.damage().get(0));
        }
    }

    @Test
    void aPageWhoseHeaderNamesAnotherPageIsNotTrusted() throws Exception {
        Path p = damaged("id", b -> b[3 * PAGE] = 7);
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(new BoltDamage(3, 3 * PAGE, "page 3's header says page 7"), db.damage().get(0));
        }
    }

    @Test
    void aLeafElementThatRunsPastItsPageIsSkippedAndTheOthersRead() throws Exception {
        // Page 3's element 5 is the key bucket (flags, pos, ksize, vsize at 16 + 5 * 16): its vsize made 1 MiB.
        Path p = damaged("vsize", b -> {
            int e = 3 * PAGE + 16 + 5 * 16 + 12;
            b[e + 2] = 0x10;
        });
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(List.of(), revisions(db), "the key bucket is gone");
            assertEquals(Map.of(LEASE_600, 600L, LEASE_300, 300L), db.leases(), "the lease bucket after it is read");
            assertEquals(new BoltDamage(3, 3 * PAGE, "page 3: leaf element 5 (key 3 bytes, value 1049521 bytes) runs past the page"), db.damage().get(0));
        }
    }

    @Test
    void aChangedByteInTheLastPageBreaksTheSnapshotsSha256() throws Exception {
        // A value byte of page 4 (a stale page no tree reaches): the tree reads the same, the trailer does not.
        Path p = damaged("stale", b -> b[4 * PAGE + 200] ^= 1);
        try (EtcdDb db = EtcdDb.open(p)) {
            assertEquals(EtcdDb.Trailer.SHA256_DIFFERS, db.trailer());
            assertEquals(12, revisions(db).size());
            assertEquals(new BoltDamage(-1, 5 * PAGE, "the snapshot's SHA-256 (its last 32 bytes, as etcdctl snapshot save writes it) does not match its pages: the file changed since it was saved"
                    + "; every page reached checks out: the change is inside a value (walverify --level values checks each) or on a page no key reaches (a free one)"),
                    db.damage().get(0));
        }
    }
}
