package dev.walkit.recover;

import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How far a file being written has got, for the threads that follow it behind the writer (its SHA-256,
 * its read-back, its writeback): the writer says what it has written, then that it closed the file or
 * abandoned it; a follower waits for bytes beyond what it has done.
 */
final class WriteProgress {
    private final AtomicLong written = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean cancelled;

    /** The writer has written the file up to {@code size} bytes (a record boundary, for a WAL). */
    void written(long size) {
        written.set(size);
    }

    /** The writer closed the file at {@code size} bytes. */
    void close(long size) {
        written.set(size);
        closed = true;
    }

    /** The file is abandoned: followers stop. */
    void cancel() {
        cancelled = true;
        closed = true;
    }

    boolean cancelled() {
        return cancelled;
    }

    /**
     * Waits until the file has more than {@code done} bytes and returns its size then; -1 when it was closed
     * with no more. Throws {@link CancellationException} when the file was abandoned.
     */
    long awaitBeyond(long done) {
        for (;;) {
            if (cancelled) throw new CancellationException("the output was abandoned");
            boolean last = closed;  // read before the size: close() sets the final size first
            long size = written.get();
            if (size > done) return size;
            if (last) return -1;
            LockSupport.parkNanos(1_000_000);
        }
    }
}
