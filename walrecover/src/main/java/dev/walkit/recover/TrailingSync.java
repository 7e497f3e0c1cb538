package dev.walkit.recover;

import dev.walkit.format.Background;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;

/**
 * The writeback of a file as it is written: a thread forces its data to disk each time the writer has
 * written {@link #STEP} more bytes, and fsyncs it once the writer has closed it. The disk then works while
 * the log is replayed. Left to the one fsync at the end, a 2 GiB output went to disk only then (the
 * kernel starts writing back at a tenth of memory in dirty pages): 1.9 s after the output was closed.
 */
final class TrailingSync {
    /** 128 MiB: 16 forces for 2 GiB, each a journal commit of a few ms. */
    static final long STEP = 128L << 20;

    private final CompletableFuture<Void> result;

    /** Forces {@code file} to disk each time {@code step} more bytes are written ({@link #STEP} in use). */
    TrailingSync(Path file, WriteProgress progress, long step) {
        result = Background.start("walrecover-fsync", () -> run(file, progress, step));
    }

    /** Waits until the file, closed, is on disk (fsync done). */
    void result() throws IOException {
        Background.join(result, "fsync");
    }

    private static Void run(Path file, WriteProgress progress, long step) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            // Forced each time step more bytes are written; then, after the close, fsynced.
            for (long forced = 0, size; (size = progress.awaitBeyond(forced + step - 1)) >= 0; forced = size) {
                ch.force(false);
            }
            ch.force(true);
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": fsync failed: " + e.getMessage(), e));
        }
    }
}
