package dev.walkit.recover;

import dev.walkit.format.LogBuilder;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A full disk, on a real small file system (a 256 KiB tmpfs; the test is skipped, saying why, where it cannot be
 * mounted): walrecover checks the space first and says so with the numbers, and a write that fails names the file
 * being written, not the input.
 */
class DiskFullTest {
    @TempDir
    Path dir;
    Path small;
    boolean mounted;

    @BeforeEach
    void mount() throws Exception {
        small = Files.createDirectories(dir.resolve("small"));
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        mounted = p.waitFor() == 0;
        assumeTrue(mounted, "cannot mount a tmpfs here (needs root): " + out.strip());
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) new ProcessBuilder("umount", small.toString()).start().waitFor();
    }

    @Test
    void notEnoughSpaceIsSaidBeforeAnythingIsWritten() throws Exception {
        byte[] log = LogBuilder.puts(4000).bytes();
        assertTrue(log.length > 256 << 10, "an input larger than the file system: " + log.length);
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", log);
        Path out = small.resolve("out");
        WalRecoverTest.Run r = WalRecoverTest.run("--out", out.toString(), in.toString());
        assertEquals(4, r.exit(), r.out() + r.err());
        assertTrue(r.err().startsWith("walrecover: " + out + ": not enough free space: the output needs up to " + log.length
                + " bytes (the input's size: the history form is at most that), "), r.err());
        assertFalse(Files.exists(out), "nothing left behind");
    }

    @Test
    void aWriteThatFailsNamesTheOutputFile() throws Exception {
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", LogBuilder.puts(4000).bytes());
        Path target = small.resolve("wal");
        try (WalFile f = WalFile.open(in, ReaderOptions.defaults().maxRecLen()); WalWriter w = WalWriter.create(target)) {
            IOException e = assertThrows(IOException.class, () -> w.appendFrom(f, 0, f.size()));
            assertTrue(e.getMessage().startsWith(target + ": write failed ("), e.getMessage());
            assertTrue(e.getMessage().endsWith("No space left on device"), e.getMessage());
        }
    }

    @Test
    void aDirectoryThatCannotBeWrittenIsNamedNotItsLockFile() throws Exception {
        Path out = Files.createDirectories(small.resolve("out"));
        assertEquals(0, new ProcessBuilder("mount", "-o", "remount,ro", small.toString()).start().waitFor(), "remounted read-only");
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", LogBuilder.puts(10).bytes());
        WalRecoverTest.Run r = WalRecoverTest.run("--out", out.toString(), in.toString());
        assertEquals(4, r.exit(), r.out() + r.err());
        assertEquals("walrecover: " + out + ": cannot write in this directory: Read-only file system", r.err().strip());
    }
}
