package dev.walkit.recover;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The writeback of a file as it is written: a thread ({@link FollowedOutput}) forces its data to disk each
 * time the writer has written {@link #STEP} more bytes, and fsyncs it once the writer has closed it. The
 * disk then works while the log is replayed. Left to the one fsync at the end, a 2 GiB output went to
 * disk only then (the kernel starts writing back at a tenth of memory in dirty pages): 1.9 s after the
 * output was closed.
 */
final class TrailingSync {
    /** 128 MiB: 16 forces for 2 GiB, each a journal commit of a few ms. */
    static final long STEP = 128L << 20;

    private TrailingSync() {
    }

    /** Forces {@code file} to disk each time {@code step} more bytes are written, and fsyncs it once the writer closed it. */
    static Void run(Path file, WriteProgress progress, long step) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
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
