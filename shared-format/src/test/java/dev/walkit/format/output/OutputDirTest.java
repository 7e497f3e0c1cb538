package dev.walkit.format.output;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class OutputDirTest {
    private static final Instant NOW = Instant.parse("2026-12-03T14:30:00Z");

    @TempDir
    Path tmp;

    /** A stop where a crash would be: an Error, so the switch does not undo itself as it does on an IOException. */
    private static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    /** Writes "new wal" and "new leases" as temps and publishes them, leases.json first, wal last (the commit name). */
    private static String publishNewPair(OutputDir d) throws IOException {
        Path leases = d.temp("leases.json");
        Files.writeString(leases, "new leases");
        Durable.fsync(leases);
        Path wal = d.temp("wal");
        Files.writeString(wal, "new wal");
        Durable.fsync(wal);
        Map<String, Path> pair = new LinkedHashMap<>();
        pair.put("leases.json", leases);
        pair.put("wal", wal);
        return d.publish(pair, NOW);
    }

    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) m.put(p.getFileName().toString(), Files.readString(p));
        }
        return m;
    }

    private Path oldPair() throws IOException {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve("wal"), "old wal");
        Files.writeString(out.resolve("leases.json"), "old leases");
        return out;
    }

    @Test
    void aFreshDirGetsThePairAndNothingElse() throws Exception {
        Path out = tmp.resolve("a/b/out");
        try (OutputDir d = OutputDir.open(out)) {
            assertNull(publishNewPair(d));
            assertTrue(d.cleanedUp().isEmpty());
        }
        assertEquals(Map.of("wal", "new wal", "leases.json", "new leases"), contents(out), "no lock file, no intent, no temp left");
    }

    @Test
    void theOldPairIsKeptUnderOneSuffix() throws Exception {
        Path out = oldPair();
        Files.writeString(out.resolve("wal.broken.20261203T143000Z"), "an earlier one");
        try (OutputDir d = OutputDir.open(out)) {
            assertEquals(".broken.20261203T143000Z-1", publishNewPair(d), "a name in use is not reused");
        }
        assertEquals(Map.of("wal", "new wal", "leases.json", "new leases", "wal.broken.20261203T143000Z", "an earlier one",
                "wal.broken.20261203T143000Z-1", "old wal", "leases.json.broken.20261203T143000Z-1", "old leases"), contents(out));
    }

    @Test
    void aRunThatPublishesNothingLeavesNoTraceAndRemovesTheDirsItMade() throws Exception {
        Path out = tmp.resolve("x/y/out");
        try (OutputDir d = OutputDir.open(out)) {
            Files.writeString(d.temp("wal"), "partial");
            assertTrue(Files.exists(out.resolve(DirLock.FILE)), "the lock file is there while the run is");
        }
        assertFalse(Files.exists(tmp.resolve("x")), "x/y/out and the parents it needed are gone");
        Path existing = Files.createDirectories(tmp.resolve("existing"));
        try (OutputDir d = OutputDir.open(existing)) {
            Files.writeString(d.temp("wal"), "partial");
        }
        assertEquals(Map.of(), contents(existing), "an existing DIR stays, empty as it was");
    }

    @Test
    void aSecondWriterIsBusyWhileTheFirstHoldsTheLock() throws Exception {
        Path out = tmp.resolve("out");
        try (OutputDir d = OutputDir.open(out)) {
            assertEquals(out.toAbsolutePath(), d.dir());
            OutputDir.Busy b = assertThrows(OutputDir.Busy.class, () -> OutputDir.open(out));
            assertEquals(Long.toString(ProcessHandle.current().pid()), b.holder());
        }
        try (OutputDir d = OutputDir.open(out)) {
            assertTrue(d.cleanedUp().isEmpty());
        }
    }

    @Test
    void aLockFileLeftByAKilledRunIsTakenOverAndRemoved() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve(DirLock.FILE), "99999 1");
        try (OutputDir d = OutputDir.open(out)) {
            publishNewPair(d);
        }
        assertFalse(Files.exists(out.resolve(DirLock.FILE)));
    }

    @Test
    void crashAfterEachStepOverAnOldPair() throws Exception {
        // Steps: 1 intent, 2 wal aside, 3 leases.json aside, 4 new leases.json in, 5 new wal in.
        for (int crashAt = 1; crashAt <= 5; crashAt++) {
            Path out = oldPair();
            crashAndRecover(out, crashAt, 5);
            if (crashAt == 5) {
                // Every rename made: the switch is finished, the complete new pair kept, the old one under its kept names.
                Map<String, String> c = contents(out);
                assertEquals("new wal", c.get("wal"), "crash after the last rename: finished, not undone: " + c);
                assertEquals("new leases", c.get("leases.json"), c.toString());
                assertTrue(c.entrySet().stream().anyMatch(e -> e.getKey().startsWith("wal.broken.") && e.getValue().equals("old wal"))
                        && c.entrySet().stream().anyMatch(e -> e.getKey().startsWith("leases.json.broken.") && e.getValue().equals("old leases")), c.toString());
                deleteTree(out);
                continue;
            }
            assertEquals(Map.of("wal", "old wal", "leases.json", "old leases"), contents(out), "crash after step " + crashAt + ": undone");
            try (OutputDir d = OutputDir.open(out)) {
                publishNewPair(d);
            }
            assertEquals("new wal", Files.readString(out.resolve("wal")), "the next run succeeds");
            deleteTree(out);
        }
    }

    @Test
    void crashAfterEachStepIntoAFreshDir() throws Exception {
        // Steps: 1 intent, 2 leases.json in, 3 wal in.
        for (int crashAt = 1; crashAt <= 3; crashAt++) {
            Path out = Files.createDirectories(tmp.resolve("fresh"));
            crashAndRecover(out, crashAt, 3);
            assertEquals(crashAt == 3 ? Map.of("wal", "new wal", "leases.json", "new leases") : Map.of(), contents(out),
                    "crash after step " + crashAt + (crashAt == 3 ? ": every rename made, finished (a complete pair is never deleted)" : ": undone"));
            deleteTree(out);
        }
    }

    /** Crashes a publish after step {@code crashAt}, checks the pair rule at that moment, then opens DIR again (which puts it right). */
    private static void crashAndRecover(Path out, int crashAt, int steps) throws Exception {
        boolean hadOld = Files.exists(out.resolve("wal"));
        OutputDir d = OutputDir.open(out);
        d.afterEachStep(step -> {
            if (step == crashAt) throw new Crash();
        });
        try {
            publishNewPair(d);
            fail("no crash at step " + crashAt + " of " + steps);
        } catch (Crash expected) {
            d.crashed();
        }
        Map<String, String> at = contents(out);
        String wal = at.get("wal");
        if (wal != null) {
            assertEquals(wal.replace("wal", "leases"), at.get("leases.json"), "crash after step " + crashAt + ": wal beside its own leases.json: " + at);
        }
        assertTrue(at.containsValue("new wal") && at.containsValue("new leases"), "the new files are somewhere: " + at);
        if (hadOld) assertTrue(at.containsValue("old wal") && at.containsValue("old leases"), "no old file lost: " + at);
        assertTrue(at.containsKey(PairSwitch.INTENT), "the intent file says what to do: " + at);
        try (OutputDir again = OutputDir.open(out)) {
            List<String> said = again.cleanedUp();
            assertTrue(said.get(0).startsWith(crashAt == steps ? "an earlier run had put its new leases.json and wal in place and stopped before it said so"
                    : "an earlier run stopped while putting"), said.toString());
        }
    }

    @Test
    void anIntentFileThisVersionDidNotWriteStopsTheRunWithoutTouchingAnything() throws Exception {
        Path out = oldPair();
        Files.writeString(out.resolve(PairSwitch.INTENT), "something else\n");
        IOException e = assertThrows(IOException.class, () -> OutputDir.open(out));
        assertEquals(out.resolve(PairSwitch.INTENT) + ": not an intent file this version wrote (first line \"something else\"); "
                + "left as it is: look at it, and remove it by hand to go on", e.getMessage());
        assertEquals(Map.of("wal", "old wal", "leases.json", "old leases", PairSwitch.INTENT, "something else\n"), contents(out));
    }

    @Test
    void theTempFilesOfEarlierRunsAreRemovedAndNamed() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.write(out.resolve(".wal.tmp-123-456"), new byte[10]);
        Files.write(out.resolve(".wal.tmp-77--5"), new byte[1]);
        Files.writeString(out.resolve(".wal.tmp-notours"), "x");
        try (OutputDir d = OutputDir.open(out)) {
            assertEquals(List.of("removed .wal.tmp-123-456 (10 bytes): a temp file of an earlier run that did not finish",
                    "removed .wal.tmp-77--5 (1 bytes): a temp file of an earlier run that did not finish"), d.cleanedUp().stream().sorted().toList());
        }
        assertEquals(Map.of(".wal.tmp-notours", "x"), contents(out));
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(q);
        }
    }

    @Test
    void sqlitesJournalBesideAnEarlierRunsTempDatabaseIsRemovedToo() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("kine-out"));
        Files.writeString(out.resolve(".state.db.tmp-4242-123456789"), "half a database");
        Files.writeString(out.resolve(".state.db.tmp-4242-123456789-journal"), "its rollback journal");
        Files.writeString(out.resolve("state.db-journal"), "not ours: kept");
        try (OutputDir d = OutputDir.open(out)) {
            assertEquals(2, d.cleanedUp().size(), d.cleanedUp().toString());
            assertTrue(d.cleanedUp().stream().anyMatch(l -> l.startsWith("removed .state.db.tmp-4242-123456789-journal")), d.cleanedUp().toString());
        }
        assertEquals(Map.of("state.db-journal", "not ours: kept"), contents(out));
    }
}
