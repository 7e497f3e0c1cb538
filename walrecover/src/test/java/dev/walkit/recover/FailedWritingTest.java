package dev.walkit.recover;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A full disk mid-write names the output, not its hidden temp file, and says that nothing was written (the run
 * publishes atomically); a failure that is not about the output directory, or a dry run's, is said as it is.
 */
class FailedWritingTest {
    @TempDir
    Path dir;

    @Test
    void aWriteThatFailsInTheOutputNamesItAndSaysNothingWasWritten() {
        Path out = dir.resolve("recovered");
        String temp = out + "/.db.tmp-4242-123456789: write failed (1048576 bytes copied from /data/wal): No space left on device";
        assertEquals(out + "/db (being written): write failed (1048576 bytes copied from /data/wal): No space left on device; nothing was written to "
                + out + " (what was begun is removed)", WalRecover.failedWriting(temp, out));
        assertEquals("/data/wal: no such file or directory", WalRecover.failedWriting("/data/wal: no such file or directory", out));
        assertEquals(temp, WalRecover.failedWriting(temp, null), "a dry run writes nothing: said as it is");
    }
}
