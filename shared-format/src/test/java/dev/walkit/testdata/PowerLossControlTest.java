package dev.walkit.testdata;

import dev.walkit.testdata.PowerLoss.Fault;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The harness catches loss: a tool that copies its output with {@code cp} and renames it without an fsync
 * loses it to a power cut after it has finished (the rename reached the disk, the data did not); the same
 * tool with {@code sync} on the file and the directory does not.
 */
class PowerLossControlTest {
    @TempDir
    static Path dir;
    static Path input;

    @BeforeAll
    static void lazyFs() throws Exception {
        String why = LazyFs.unavailable();
        assumeTrue(why == null, why);
        byte[] data = new byte[8 << 20];
        new Random(20).nextBytes(data);
        input = Files.write(dir.resolve("input"), data);
    }

    private static PowerLoss harness(String name, String script) throws Exception {
        Path ref = Files.createDirectories(dir.resolve(name + "-ref"));
        Files.copy(input, ref.resolve("wal"));
        PowerLoss.Tool tool = new PowerLoss.Tool((out, force) -> List.of("sh", "-c", script, "sh", out.toString(), input.toString()), List.of("wal"), false);
        return new PowerLoss(Files.createDirectories(dir.resolve(name)), tool, PowerLoss.Generation.of(ref, List.of("wal")), null, 64);
    }

    @Test
    void aCopyWithoutFsyncIsCaughtLosingItsData() throws Exception {
        try (PowerLoss h = harness("nosync", "mkdir -p \"$1\" && cp \"$2\" \"$1/.wal.tmp-1-1\" && mv \"$1/.wal.tmp-1-1\" \"$1/wal\"")) {
            // The cut comes once the tool has exited 0: its output was there, and is lost.
            AssertionError e = assertThrows(AssertionError.class, () -> h.run(new Fault.PowerCut(30_000), false));
            assertTrue(e.getMessage().contains("wal is neither the old one nor an undisturbed run's"), e.getMessage());
        }
    }

    @Test
    void theSameCopyWithSyncKeepsIt() throws Exception {
        String script = "mkdir -p \"$1\" && sync \"$(dirname \"$1\")\" && cp \"$2\" \"$1/.wal.tmp-1-1\" && sync \"$1/.wal.tmp-1-1\""
                + " && mv \"$1/.wal.tmp-1-1\" \"$1/wal\" && sync \"$1\"";
        try (PowerLoss h = harness("sync", script)) {
            assertEquals(Map.of("state", "new"), Map.of("state", h.run(new Fault.PowerCut(30_000), false).state()));
        }
    }
}
