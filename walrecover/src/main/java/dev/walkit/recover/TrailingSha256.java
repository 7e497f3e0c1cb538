package dev.walkit.recover;

import dev.walkit.format.Background;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The SHA-256 of a file as it is written: a thread reads it back (from the page cache) behind the
 * writer, up to what the writer has flushed, so that the hash costs the writing thread nothing and
 * is ready when the file is closed. It is the hash of the bytes in the file, not of a buffer.
 */
final class TrailingSha256 {
    private final AtomicLong flushed = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean cancelled;
    private final CompletableFuture<String> result;

    TrailingSha256(Path file) {
        result = Background.start("walrecover-sha256", () -> run(file));
    }

    /** The writer has written the file up to {@code size} bytes. */
    void flushed(long size) {
        flushed.set(size);
    }

    /** The writer closed the file at {@code size} bytes: the hash of all of them. */
    String finish(long size) throws IOException {
        flushed.set(size);
        closed = true;
        return Background.join(result, "the output's SHA-256");
    }

    /** The file is abandoned: the reader stops. */
    void cancel() {
        cancelled = true;
        closed = true;
    }

    private String run(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            long pos = 0;
            while (!cancelled) {
                long available = flushed.get();
                if (pos < available) {
                    int n = in.read(buf, 0, (int) Math.min(buf.length, available - pos));
                    if (n < 0) throw new IOException(file + ": ends at " + pos + " bytes, " + available + " were written");
                    md.update(buf, 0, n);
                    pos += n;
                } else if (closed) {
                    if (pos >= flushed.get()) break;
                } else {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            if (cancelled) throw new CancellationException("the output was abandoned");
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": read back failed: " + e.getMessage(), e));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
