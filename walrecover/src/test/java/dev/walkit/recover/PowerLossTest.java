package dev.walkit.recover;

import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import dev.walkit.testdata.LazyFs;
import dev.walkit.testdata.PowerLoss;
import dev.walkit.testdata.PowerLoss.Fault;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * walrecover as a real process with DIR on LazyFS, under power cuts at random moments, crashes right after
 * each fsync and rename, and torn writes of its temp file; into a fresh DIR and with --force over an earlier
 * pair. What must hold after each is {@link PowerLoss}'s. Skipped, with the reason, where LazyFS cannot run.
 */
class PowerLossTest {
    private static final List<String> PAIR = List.of(Recovery.LEASES_FILE, "wal");

    @TempDir
    static Path dir;
    static Path input;
    static PowerLoss.Generation fresh;
    static Path oldDir;
    static long runMillis;

    @BeforeAll
    static void inputs() throws Exception {
        String why = LazyFs.unavailable();
        assumeTrue(why == null, why);
        // ~32 MiB of Kubernetes-shaped log with a torn tail, as a power loss leaves it: the salvage copies the
        // rest (the history form) and drops the torn transaction.
        DamageInjector inj = new DamageInjector(new K8sWalGenerator(K8sWalGenerator.Options.of(3, 32 << 20)).bytes());
        input = Files.write(dir.resolve("input.wal"), inj.apply(DamageInjector.Kind.TORN_TAIL, inj.recordCount() - 1, 1).log());
        Path reference = dir.resolve("reference");
        long t0 = System.nanoTime();
        assertEquals(0, new ProcessBuilder(command(reference, false)).redirectErrorStream(true)
                .redirectOutput(dir.resolve("reference.out").toFile()).start().waitFor(), () -> read(dir.resolve("reference.out")));
        runMillis = (System.nanoTime() - t0) / 1_000_000;
        fresh = PowerLoss.Generation.of(reference, PAIR);
        oldDir = dir.resolve("old");
        Path oldInput = dir.resolve("old-input.wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 4 << 20)).write(oldInput);
        assertEquals(0, WalRecoverTest.run("--out", oldDir.toString(), oldInput.toString()).exit());
    }

    static List<String> command(Path out, boolean force) {
        return WalRecoverTest.process(input, out, force);
    }

    /**
     * LazyFS's cache (allocated at each of a round's two mounts) holds the unsynced output four times over: 512 MiB took
     * 397 s for the 56 rounds, 128 MiB 195 s.
     */
    private static PowerLoss harness(String name) throws Exception {
        return new PowerLoss(Files.createDirectories(dir.resolve(name)), new PowerLoss.Tool(PowerLossTest::command, PAIR, true), fresh, oldDir, 128);
    }

    @Test
    void powerCutsAtRandomMoments() throws Exception {
        try (PowerLoss h = harness("cuts")) {
            cuts(h);
        }
    }

    private static void cuts(PowerLoss h) throws Exception {
        Random rnd = new Random(18);
        Map<String, Integer> seen = new TreeMap<>();
        for (boolean overOld : new boolean[] {false, true}) {
            for (int i = 0; i < 20; i++) {
                // Over the whole run on LazyFS (slower than the reference's disk), and a little past it.
                long at = rnd.nextLong(runMillis * 2 + 500);
                PowerLoss.Round r = h.run(new Fault.PowerCut(at), overOld);
                seen.merge((overOld ? "over old: " : "fresh: ") + r.state(), 1, Integer::sum);
            }
        }
        System.out.println("walrecover power cuts, end states: " + seen);
        // The cuts fell before, during and after the switch: each end state was reached.
        assertTrue(seen.containsKey("fresh: nothing") && seen.containsKey("fresh: new"), seen.toString());
        assertTrue(seen.containsKey("over old: old") && seen.containsKey("over old: new"), seen.toString());
    }

    @Test
    void aCrashRightAfterEachFsyncAndRename() throws Exception {
        try (PowerLoss h = harness("steps")) {
            steps(h);
        }
    }

    private static void steps(PowerLoss h) throws Exception {
        List<Fault> steps = List.of(
                new Fault.CrashAfter("fsync", "\\.wal\\.tmp-", null),
                new Fault.CrashAfter("fsync", "\\.leases\\.json\\.tmp-", null),
                new Fault.CrashAfter("fsync", "\\.walkit\\.switch\\.tmp-", null),
                new Fault.CrashAfter("rename", "x", "/\\.walkit\\.switch$"),
                new Fault.CrashAfter("rename", "x", "/leases\\.json$"),
                new Fault.CrashAfter("rename", "x", "/wal$"));
        Map<String, String> states = new TreeMap<>();
        for (boolean overOld : new boolean[] {false, true}) {
            for (Fault f : steps) states.put((overOld ? "over old, " : "fresh, ") + f, h.run(f, overOld).state());
            for (String aside : List.of("/wal\\.broken\\.", "/leases\\.json\\.broken\\.")) {
                Fault f = new Fault.CrashAfter("rename", "x", aside);
                if (overOld) states.put("over old, " + f, h.run(f, true).state());
            }
        }
        // After the last rename the new pair stands; before the intent file, nothing (or the old pair) does.
        assertEquals("new", states.get("fresh, " + steps.get(5)), states.toString());
        assertEquals("nothing", states.get("fresh, " + steps.get(0)), states.toString());
        assertEquals("old", states.get("over old, " + steps.get(2)), states.toString());
        assertEquals("switching", states.get("over old, " + steps.get(4)), states.toString());
    }

    @Test
    void aTornWriteOfTheTempFile() throws Exception {
        try (PowerLoss h = harness("torn")) {
            assertEquals("nothing", h.run(new Fault.TornWrite(".wal.tmp-", 1), false).state());
            assertEquals("old", h.run(new Fault.TornWrite(".wal.tmp-", 1), true).state());
        }
    }

    /** A child's output, for a failure's message (not inherited: surefire takes a child's writes to its stream for a corrupted channel). */
    static String read(java.nio.file.Path p) {
        try {
            return java.nio.file.Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
