package dev.walkit.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IoErrorsTest {
    @TempDir
    Path dir;

    @Test
    void namesTheFileAndWhyForRealFailures() throws IOException {
        Path file = dir.resolve("f");
        Files.writeString(file, "x");
        // What Files throws, with the file alone as its message.
        IOException exists = assertThrows(IOException.class, () -> Files.createDirectories(file));
        assertEquals(file + ": already exists", IoErrors.describe(exists));
        IOException missing = assertThrows(IOException.class, () -> Files.size(dir.resolve("nope")));
        assertEquals(dir.resolve("nope") + ": no such file or directory", IoErrors.describe(missing));
        IOException notDir = assertThrows(IOException.class, () -> Files.createFile(file.resolve("child")));
        // The kernel's own words (strerror) are kept as given.
        assertEquals(file.resolve("child") + ": Not a directory", IoErrors.describe(notDir));
    }

    @Test
    void keepsAGivenReasonAndUnwraps() {
        assertEquals("/p: Read-only file system", IoErrors.describe(new FileSystemException("/p", null, "Read-only file system")));
        assertEquals("/a -> /b: permission denied", IoErrors.describe(new AccessDeniedException("/a", "/b", null)));
        assertEquals("/p: no such file or directory", IoErrors.describe(new UncheckedIOException(new NoSuchFileException("/p"))));
        assertEquals("disk full", IoErrors.describe(new IOException("disk full")));
        assertEquals("I/O error (IOException)", IoErrors.describe(new IOException()));
    }

    /**
     * A full disk mid-write names the output, not its hidden temp file, and says that nothing was written (the tools
     * publish atomically); a failure that names no file of the output directory, or with no output, is said as it is.
     */
    @Test
    void aWriteThatFailsInTheOutputNamesItAndSaysNothingWasWritten() {
        Path out = dir.resolve("recovered");
        String temp = out + "/.db.tmp-4242-123456789: write failed (1048576 bytes copied from /data/wal): No space left on device";
        assertEquals(out + "/db (being written): write failed (1048576 bytes copied from /data/wal): No space left on device; nothing was written to "
                + out + " (what was begun is removed)", IoErrors.writing(temp, out));
        assertEquals(out + "/state.db (being written): disk I/O error; nothing was written to " + out + " (what was begun is removed)",
                IoErrors.writing(out + "/.state.db.tmp-7-8: disk I/O error", out));
        assertEquals("/data/wal: no such file or directory", IoErrors.writing("/data/wal: no such file or directory", out));
        assertEquals(temp, IoErrors.writing(temp, null), "nothing was to be written: said as it is");
    }
}
