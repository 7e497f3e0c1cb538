package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.pass.HistoryDump;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.SavedIndex;
import dev.walkit.format.pass.StoreHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A saved index answers as a full read does, on every corpus log (the fixtures, generated clean and compacted logs,
 * every kind of damage at the start, middle and end, every rule break): the account field by field and every answer
 * the shell and serve ask. The one-shot commands save and use it, and --no-index leaves it alone; an etcd db and a kine
 * db are indexed too, their WAL form kept beside the index.
 */
class SavedIndexParityTest {
    @TempDir
    Path dir;

    static Stream<Arguments> logs() throws IOException {
        Stream<Arguments> more = Stream.of(Arguments.of("fixture vectors/small-crc-range-bug",
                (Supplier<byte[]>) () -> read(Fixtures.path("vectors/small-crc-range-bug").resolve("wal"))));
        return Stream.concat(dev.walkit.testdata.Corpus.logs().stream().map(l -> Arguments.of(l.name(), l.bytes())), more);
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("logs")
    void theIndexAnswersAsAFullRead(String name, Supplier<byte[]> log) throws IOException {
        Path wal = LogBuilder.write(dir, "wal", log.get());
        String whole;
        try (StoreHistory x = Pass.history(wal, null)) {
            whole = HistoryDump.of(x);
        }
        List<String> said = new ArrayList<>();
        SavedIndex.Cache cache = new SavedIndex.Cache(dir.resolve("cache"), said::add);
        try (StoreHistory x = Pass.history(wal, null, cache)) {
            assertFalse(x.indexed());
            assertEquals(whole, HistoryDump.of(x));
        }
        try (StoreHistory x = Pass.history(wal, null, cache)) {
            assertTrue(x.indexed(), "the second open maps the index");
            assertEquals(whole, HistoryDump.of(x));
        }
        assertEquals(List.of(), said);
    }

    private static Path indexOf(Path file) throws IOException {
        Object dev = Files.getAttribute(file, "unix:dev");
        Object ino = Files.getAttribute(file, "unix:ino");
        return IndexCache.dir(System.getenv()).resolve(Long.toHexString((Long) dev) + "-" + Long.toHexString((Long) ino) + ".idx");
    }

    @Test
    void theOneShotCommandsSaveAndUseItAndNoIndexLeavesItAlone() throws Exception {
        Path wal = LogBuilder.write(dir, "wal", read(Fixtures.path("sample").resolve("wal")));
        Files.deleteIfExists(indexOf(wal)); // an inode a test before may have had
        WalDoctorTest.Run plain = WalDoctorTest.run("stats", wal.toString(), "--no-index");
        assertEquals(0, plain.exit(), plain.err());
        assertFalse(Files.exists(indexOf(wal)), "--no-index saves none");
        WalDoctorTest.Run first = WalDoctorTest.run("stats", wal.toString());
        assertTrue(Files.exists(indexOf(wal)), "saved by the first open");
        WalDoctorTest.Run second = WalDoctorTest.run("range", wal.toString(), "/registry/", "-w", "json");
        WalDoctorTest.Run third = WalDoctorTest.run("stats", wal.toString());
        assertEquals(plain.out(), first.out());
        assertEquals(plain.out(), third.out());
        assertEquals("", first.err() + third.err());
        assertEquals(WalDoctorTest.run("range", wal.toString(), "/registry/", "-w", "json", "--no-index"), second, "exit, answer and the damage's line");
        // A stale index is said once, by the command that found it, and replaced.
        Files.write(wal, new byte[] {0}, java.nio.file.StandardOpenOption.APPEND);
        WalDoctorTest.Run grown = WalDoctorTest.run("stats", wal.toString());
        assertTrue(grown.err().startsWith("waldoctor stats: saved index " + indexOf(wal) + " not used: the file grew ("), grown.err());
        assertEquals(1, grown.err().lines().count(), grown.err());
        assertEquals("", WalDoctorTest.run("stats", wal.toString()).err());
    }

    /**
     * An etcd db and a kine db (its -wal beside it) are indexed too: their history is of the WAL form made at the first
     * open, kept beside the index; the second open maps both and answers alike, the store's own facts included (an etcd
     * db's leases and compact revision, kine's rows). A db written since, or kine's -wal changed, is read whole again.
     */
    @Test
    void anEtcdDbAndAKineDbAreIndexedToo() throws IOException {
        Path etcd = dir.resolve("snapshot.db");
        Files.copy(Fixtures.path("etcd/snapshot.db"), etcd);
        Path kine = dir.resolve("state.db");
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(3, 200)).write(kine);
        for (Path store : List.of(etcd, kine)) {
            String whole;
            try (StoreHistory x = Pass.history(store, null)) {
                whole = HistoryDump.of(x) + x.source().etcd() + x.source().kine();
            }
            List<String> said = new ArrayList<>();
            SavedIndex.Cache cache = new SavedIndex.Cache(dir.resolve("cache"), said::add);
            for (boolean indexed : new boolean[] {false, true, true}) {
                try (StoreHistory x = Pass.history(store, null, cache)) {
                    assertEquals(indexed, x.indexed(), store + (indexed ? ": mapped" : ": read whole"));
                    assertEquals(whole, HistoryDump.of(x) + x.source().etcd() + x.source().kine(), store.toString());
                }
            }
            assertEquals(List.of(), said);
            assertTrue(Files.exists(dir.resolve("cache").resolve(formName(store))),
                    "the WAL form kept beside the index");
        }
        // kine's committed transactions in its -wal: another history; the index is not used.
        Path sideWal = kine.resolveSibling("state.db-wal");
        Files.write(sideWal, new byte[0]);
        List<String> said = new ArrayList<>();
        try (StoreHistory x = Pass.history(kine, null, new SavedIndex.Cache(dir.resolve("cache"), said::add))) {
            assertFalse(x.indexed());
        }
        assertTrue(said.size() == 1 && said.get(0).contains("not used: its -wal changed"), said.toString());
    }

    private static String formName(Path store) throws IOException {
        return Long.toHexString((Long) Files.getAttribute(store, "unix:dev")) + "-" + Long.toHexString((Long) Files.getAttribute(store, "unix:ino")) + ".wal";
    }
}
