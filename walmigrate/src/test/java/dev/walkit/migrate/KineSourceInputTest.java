package dev.walkit.migrate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A kine source that is not a SQLite file: exit 4 and a line that says what it is. */
class KineSourceInputTest {
    @Test
    void aSourceThatIsNoSqliteFileIsExitFourWithOneLine(@TempDir Path dir) throws Exception {
        // A directory (or a FIFO, a device) is named as such, a missing file as missing: before any copy is made.
        UnreachableTargetTest.Run d = UnreachableTargetTest.run("kine", "--sqlite", dir.toString(), "--dry-run");
        assertEquals(4, d.exit(), d.err());
        assertEquals("walmigrate: " + dir + ": not a regular file (a FIFO, socket, device or directory)\n", d.err());
        Path missing = dir.resolve("state.db");
        UnreachableTargetTest.Run m = UnreachableTargetTest.run("kine", "--sqlite", missing.toString(), "--dry-run");
        assertEquals(4, m.exit(), m.err());
        assertEquals("walmigrate: " + missing + ": no such SQLite file\n", m.err());
    }
}
