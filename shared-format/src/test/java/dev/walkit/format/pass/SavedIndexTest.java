package dev.walkit.format.pass;

import dev.walkit.format.Fixtures;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The saved index: made at the first open, mapped at the next (answers equal to a full read's), and refused with one
 * line (then made again) when the file changed by a byte in the middle with its modification time put back (the change
 * time notices), was cut, grew, or when the index is corrupted or foreign.
 */
class SavedIndexTest {
    @TempDir
    Path dir;

    private final List<String> said = new ArrayList<>();

    private SavedIndex.Cache cache() {
        return new SavedIndex.Cache(dir.resolve("cache"), said::add);
    }

    private Path sample() throws IOException {
        return sampleAs("sample.wal");
    }

    /** The history read whole, its dump. */
    private static String whole(Path wal) throws IOException {
        try (StoreHistory x = Pass.history(wal, null)) {
            assertFalse(x.indexed());
            return HistoryDump.of(x);
        }
    }

    /** Opens through the cache; returns whether the index was used, and checks the answers equal a full read's. */
    private boolean open(Path wal) throws IOException {
        String expected = whole(wal);
        try (StoreHistory x = Pass.history(wal, null, cache())) {
            assertEquals(expected, HistoryDump.of(x));
            return x.indexed();
        }
    }

    private Path indexFile() throws IOException {
        try (var s = Files.list(dir.resolve("cache"))) {
            List<Path> all = s.toList();
            assertEquals(1, all.size(), all.toString());
            return all.get(0);
        }
    }

    @Test
    void madeAtTheFirstOpenAndMappedAtTheNext() throws IOException {
        Path wal = sample();
        assertFalse(open(wal), "first open reads the file");
        Path idx = indexFile();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(idx)), "the cluster's keys: the owner's alone");
        assertTrue(open(wal), "second open maps the index");
        assertTrue(open(wal));
        assertEquals(List.of(), said, "nothing to say when the index is used");
        assertTrue(HistoryDump.of(Pass.history(wal, null)).contains("DAMAGED"), "the sample is damaged: the index keeps its damage");
    }

    @Test
    void aByteChangedInTheMiddleIsNoticedThroughTheChangeTime() throws IOException {
        Path wal = sample();
        assertFalse(open(wal));
        FileTime mtime = Files.getLastModifiedTime(wal);
        long size = Files.size(wal);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            long at = size / 2; // outside the first and last MiB's CRC? The sample is 1 MiB: the ends' CRC sees it too.
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x40);
        }
        Files.setLastModifiedTime(wal, mtime); // as a copy that keeps times would leave it
        assertEquals(size, Files.size(wal));
        assertFalse(open(wal), "refused: the change time moved");
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).endsWith("not used: the file was written since (its times changed); reading the file whole"), said.get(0));
        assertTrue(open(wal), "made again, and used");
    }

    @Test
    void aByteChangedPastTheEndsWithTheTimesKeptIsRefusedByNothingButTheChangeTime() throws IOException {
        // A log larger than 2 MiB: the byte changed is in neither CRC'd end; size and modification time are put back.
        LogBuilder log = new LogBuilder();
        byte[] value = new byte[3000];
        for (int i = 1; i <= 1200; i++) log.add(KeyValue.put(("/registry/pods/p" + i).getBytes(StandardCharsets.UTF_8), i, i, 1, value, 0));
        Path wal = LogBuilder.write(dir, "big.wal", log.bytes());
        assertTrue(Files.size(wal) > 3 << 20);
        assertFalse(open(wal));
        FileTime mtime = Files.getLastModifiedTime(wal);
        long at = log.offset(600) + log.length(600) - 10; // inside a value, 1.8 MiB in
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.seek(at);
            f.write(0x55);
        }
        Files.setLastModifiedTime(wal, mtime);
        assertFalse(open(wal), "refused through the change time");
        assertTrue(said.get(0).contains("the file was written since"), said.toString());
        try (StoreHistory x = Pass.history(wal, null, cache())) {
            assertTrue(x.indexed());
            assertTrue(x.account().damage().size() > 0, "the changed byte is damage, from the index too: " + x.account());
        }
    }

    @Test
    void aCutOrGrownFileIsReadWhole() throws IOException {
        Path wal = sample();
        assertFalse(open(wal));
        byte[] all = Files.readAllBytes(wal);
        Files.write(wal, java.util.Arrays.copyOf(all, all.length - 100));
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("not used: the file was cut (" + all.length + " bytes when indexed, " + (all.length - 100) + " now)"), said.toString());
        assertTrue(open(wal));
        Files.write(wal, all);
        said.clear();
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("not used: the file grew (" + (all.length - 100) + " bytes when indexed, " + all.length + " now)"), said.toString());
        assertTrue(open(wal));
    }

    /** The transaction boundaries of {@code log}: where a healthy prefix of it may end. */
    private long[] boundaries(byte[] log) throws IOException {
        Path whole = LogBuilder.write(dir, "whole.wal", log);
        try (StoreHistory x = Pass.history(whole, null)) {
            int n = x.transactionCount();
            return new long[] {x.txnOffset(1), x.txnOffset(n / 3), x.txnOffset(n / 2), x.txnOffset(n - 1)};
        }
    }

    /**
     * A live log that grew since its index was saved at a healthy end: read only from that end (the replay goes on from
     * its checkpoint), answering as a full read of the grown file, whatever the new bytes hold; its new index saved.
     */
    @Test
    void aFileThatGrewFromAHealthyEndIsReadOnlyFromThere() throws IOException {
        byte[] plain = new dev.walkit.testdata.K8sWalGenerator(dev.walkit.testdata.K8sWalGenerator.Options.of(11, 160 << 10)).bytes();
        byte[] compacted = new dev.walkit.testdata.K8sWalGenerator(new dev.walkit.testdata.K8sWalGenerator.Options(12, 400 << 10, 20, true)).bytes();
        dev.walkit.testdata.DamageInjector d = new dev.walkit.testdata.DamageInjector(plain);
        byte[] damagedLate = d.apply(dev.walkit.testdata.DamageInjector.Kind.values()[0], d.recordCount() - 5, 3).log();
        int tries = 0;
        for (byte[] log : List.of(plain, compacted, damagedLate)) {
            for (long cut : boundaries(log == damagedLate ? plain : log)) {
                if (log == damagedLate && cut >= d.offset(d.recordCount() - 5)) continue;
                Path wal = dir.resolve("live-" + tries++ + ".wal");
                Files.write(wal, java.util.Arrays.copyOf(log, (int) cut));
                assertFalse(open(wal), "first open");
                Files.write(wal, java.util.Arrays.copyOfRange(log, (int) cut, log.length), java.nio.file.StandardOpenOption.APPEND);
                String expected = whole(wal);
                try (StoreHistory x = Pass.history(wal, null, cache())) {
                    assertEquals(cut, x.resumedFrom(), "read from the saved end on");
                    assertEquals(expected, HistoryDump.of(x), "cut at " + cut);
                }
                // Its new index is saved when the growth was large (an eighth of the file); else the next open goes on
                // from the same saved end again.
                if (log.length - cut > log.length / 8) {
                    assertTrue(open(wal), "its new index, saved");
                } else {
                    try (StoreHistory x = Pass.history(wal, null, cache())) {
                        assertEquals(cut, x.resumedFrom(), "a small growth: the saved index kept");
                    }
                }
            }
        }
        assertTrue(tries >= 10, "cases: " + tries);
        assertEquals(List.of(), said, "nothing to say when the index is used for the part it covers");
    }

    /** A grown file whose indexed end was not healthy (a torn tail), or whose indexed bytes changed, is read whole. */
    @Test
    void aGrownFileIsReadWholeWhenItsIndexedEndWasNotHealthyOrItsBytesChanged() throws IOException {
        byte[] log = new dev.walkit.testdata.K8sWalGenerator(dev.walkit.testdata.K8sWalGenerator.Options.of(13, 96 << 10)).bytes();
        long cut = boundaries(log)[2];
        Path wal = dir.resolve("torn.wal");
        Files.write(wal, java.util.Arrays.copyOf(log, (int) cut + 20)); // a record cut in the middle: a torn tail
        assertFalse(open(wal));
        Files.write(wal, java.util.Arrays.copyOfRange(log, (int) cut + 20, log.length), java.nio.file.StandardOpenOption.APPEND);
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("the file grew (") && said.get(0).contains("its indexed part did not end healthy"), said.toString());
        said.clear();
        Path other = dir.resolve("changed.wal");
        Files.write(other, java.util.Arrays.copyOf(log, (int) cut));
        assertFalse(open(other));
        byte[] changed = log.clone();
        changed[(int) cut - 3] ^= 0x10; // the last byte the index covered: the CRC of its last MiB sees it
        Files.write(other, changed);
        assertFalse(open(other));
        assertTrue(said.get(0).contains("not used: the file grew ("), said.toString());
        try (StoreHistory x = Pass.history(other, null, cache())) {
            assertEquals(-1, x.resumedFrom());
        }
    }

    /** A log deleted and another made where its inode was reused: the index is not this file's, and says nothing. */
    @Test
    void anIndexOfAnotherFileOnTheSameInodeIsReplacedWithoutAWord() throws IOException {
        Path wal = sample();
        assertFalse(open(wal));
        Object ino = Files.getAttribute(wal, "unix:ino");
        // Another path to the same inode stands in for a reused one: the index names its file by its real path.
        Path other = dir.resolve("other.wal");
        Files.move(wal, other);
        assertEquals(ino, Files.getAttribute(other, "unix:ino"));
        assertFalse(open(other), "read whole");
        assertEquals(List.of(), said, "nothing said of another file's index");
        assertTrue(open(other), "its own index now");
    }

    @Test
    void aCorruptedIndexIsNotUsed() throws IOException {
        Path wal = sample();
        assertFalse(open(wal));
        Path idx = indexFile();
        try (RandomAccessFile f = new RandomAccessFile(idx.toFile(), "rw")) {
            f.seek(f.length() / 2);
            int b = f.read();
            f.seek(f.length() / 2);
            f.write(b ^ 1);
        }
        assertFalse(open(wal));
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).startsWith("saved index " + idx + " not used: damaged (its CRC-32C does not match)"), said.get(0));
        assertTrue(open(wal), "made again");
        try (RandomAccessFile f = new RandomAccessFile(idx.toFile(), "rw")) {
            f.setLength(f.length() - 1);
        }
        said.clear();
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("not used: damaged (its length is not what its header says)"), said.toString());
    }

    @Test
    void aForeignIndexIsNotUsed() throws IOException {
        Path wal = sample();
        assertFalse(open(wal));
        Path idx = indexFile();
        try (RandomAccessFile f = new RandomAccessFile(idx.toFile(), "rw")) {
            f.seek(8);
            f.writeInt(Integer.reverseBytes(SavedIndex.VERSION + 1)); // a later version's
        }
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("not used: not an index of this version"), said.toString());
        Files.writeString(idx, "not an index at all");
        said.clear();
        assertFalse(open(wal));
        assertTrue(said.get(0).contains("not used: not an index of this version"), said.toString());
        assertTrue(open(wal));
    }

    @Test
    void aCacheThatCannotBeWrittenIsSaidAndTheAnswersStand() throws IOException {
        Path wal = sample();
        Files.writeString(dir.resolve("cache"), "a file where the directory would be");
        assertFalse(open(wal));
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).startsWith("index not saved in " + dir.resolve("cache") + ": "), said.get(0));
        assertFalse(open(wal));
    }

    @Test
    void aV1LogIsIndexedToo() throws IOException {
        StringBuilder hex = new StringBuilder();
        for (String line : Files.readAllLines(Fixtures.path("vectors/legacy-v1.jsonl"))) {
            int at = line.indexOf("\"record\": \"") + 11;
            hex.append(line, at, line.indexOf('"', at));
        }
        Path wal = LogBuilder.write(dir, "v1.wal", HexFormat.of().parseHex(hex));
        assertFalse(open(wal));
        assertTrue(open(wal));
        try (StoreHistory x = Pass.history(wal, null, cache())) {
            assertEquals(dev.walkit.format.WalFormat.V1, x.format());
        }
    }

    /** The sample copied to {@code name} (each copy its own inode: its own index). */
    private Path sampleAs(String name) throws IOException {
        Path wal = dir.resolve(name);
        Files.copy(Fixtures.path("sample").resolve("wal"), wal);
        return wal;
    }

    /** Three copies of the sample, a, b and c; a and b opened and their indexes saved through {@code first}. */
    private Path[] threeSamples(SavedIndex.Cache first) throws IOException {
        Path[] w = {sampleAs("a.wal"), sampleAs("b.wal"), sampleAs("c.wal")};
        openClose(w[0], first);
        openClose(w[1], first);
        return w;
    }

    /** Opens {@code wal} through {@code cache} and closes it (the index saved at the close when there was none). */
    private static void openClose(Path wal, SavedIndex.Cache cache) throws IOException {
        try (StoreHistory x = Pass.history(wal, null, cache)) {
            x.awaitSaved();
        }
    }

    /** The index file of {@code wal} in the cache. */
    private Path indexOf(Path wal) throws IOException {
        return SavedIndex.fileOf(dir.resolve("cache"), SavedIndex.Identity.of(wal, dev.walkit.format.account.Store.Kind.WAL));
    }

    @Test
    void anIndexWhoseFileIsGoneOrUnusedForThirtyDaysIsRemovedAtTheNextSave() throws IOException {
        Path[] w = threeSamples(cache());
        Path a = w[0];
        Path b = w[1];
        Path c = w[2];
        Path ia = indexOf(a);
        Path ib = indexOf(b);
        assertTrue(Files.exists(ia) && Files.exists(ib));
        Files.delete(a);
        Files.setLastModifiedTime(ib, FileTime.fromMillis(System.currentTimeMillis() - (SavedIndex.UNUSED_DAYS + 1) * 86_400_000L));
        openClose(c, cache());
        assertFalse(Files.exists(ia), "the log was deleted: its index goes");
        assertFalse(Files.exists(ib), "not used for 31 days: it goes");
        assertTrue(Files.exists(indexOf(c)));
        assertEquals(List.of(), said);
    }

    @Test
    void overItsBoundTheLeastRecentlyUsedIndexesGoFirst() throws IOException {
        Path[] w = threeSamples(cache());
        Path a = w[0];
        Path b = w[1];
        Path c = w[2];
        long one = Files.size(indexOf(a));
        // Room for two of the sample's indexes and a half.
        SavedIndex.Cache bounded = new SavedIndex.Cache(dir.resolve("cache"), said::add, 2 * one + one / 2);
        long now = System.currentTimeMillis();
        Files.setLastModifiedTime(indexOf(a), FileTime.fromMillis(now - 120_000));
        Files.setLastModifiedTime(indexOf(b), FileTime.fromMillis(now - 60_000));
        try (StoreHistory x = Pass.history(a, null, bounded)) {
            assertTrue(x.indexed(), "a is used again: now the most recently used");
        }
        openClose(c, bounded);
        assertTrue(Files.exists(indexOf(a)), "used a moment ago");
        assertFalse(Files.exists(indexOf(b)), "the least recently used went");
        assertTrue(Files.exists(indexOf(c)), "the one just saved stays");
        try (StoreHistory x = Pass.history(b, null, bounded)) {
            assertFalse(x.indexed(), "b is read whole again");
        }
    }
}
