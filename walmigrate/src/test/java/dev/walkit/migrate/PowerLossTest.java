package dev.walkit.migrate;

import dev.walkit.testdata.KineDbGenerator;
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
 * {@code walmigrate kine --out-wal DIR} as a real process with DIR on LazyFS: power cuts at random moments, a
 * crash right after its fsync and its rename, a torn write of its temp file. It never replaces an existing
 * {@code DIR/wal}, so every run is into a fresh DIR. What must hold is {@link PowerLoss}'s.
 */
class PowerLossTest {
    @TempDir
    static Path dir;
    static Path db;
    static PowerLoss.Generation fresh;
    static long runMillis;

    @BeforeAll
    static void inputs() throws Exception {
        String why = LazyFs.unavailable();
        assumeTrue(why == null, why);
        db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(9, 80_000)).write(db);
        Path reference = dir.resolve("reference");
        long t0 = System.nanoTime();
        assertEquals(0, new ProcessBuilder(command(reference, false)).redirectErrorStream(true)
                .redirectOutput(dir.resolve("reference.out").toFile()).start().waitFor(), () -> read(dir.resolve("reference.out")));
        runMillis = (System.nanoTime() - t0) / 1_000_000;
        fresh = PowerLoss.Generation.of(reference, List.of("leases.json", "wal"));
        System.out.println("walmigrate --out-wal: " + Files.size(reference.resolve("wal")) + " bytes in " + runMillis + " ms");
    }

    static List<String> command(Path out, boolean force) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
                WalMigrate.class.getName(), "kine", "--sqlite", db.toString(), "--out-wal", out.toString());
    }

    /** LazyFS's cache (allocated at each mount) holds the 4 MiB output eight times over: 256 MiB took 101 s, 32 MiB 71 s. */
    private static PowerLoss harness(String name) throws Exception {
        return new PowerLoss(Files.createDirectories(dir.resolve(name)), new PowerLoss.Tool(PowerLossTest::command, List.of("leases.json", "wal"), false),
                fresh, null, 32);
    }

    @Test
    void powerCutsCrashesAndATornWrite() throws Exception {
        Map<String, Integer> seen = new TreeMap<>();
        try (PowerLoss h = harness("faults")) {
            Random rnd = new Random(19);
            for (int i = 0; i < 20; i++) seen.merge("cut: " + h.run(new Fault.PowerCut(rnd.nextLong(runMillis * 2 + 500)), false).state(), 1, Integer::sum);
            assertEquals("nothing", h.run(new Fault.CrashAfter("fsync", "\\.wal\\.tmp-", null), false).state());
            assertEquals("new", h.run(new Fault.CrashAfter("rename", "x", "/wal$"), false).state());
            assertEquals("nothing", h.run(new Fault.TornWrite(".wal.body.tmp-", 1), false).state());
        }
        System.out.println("walmigrate power cuts, end states: " + seen);
        assertTrue(seen.containsKey("cut: nothing") && seen.containsKey("cut: new"), seen.toString());
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
