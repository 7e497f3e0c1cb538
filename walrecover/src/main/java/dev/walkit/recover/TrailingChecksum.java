package dev.walkit.recover;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CancellationException;

/**
 * The checksum ({@link OutputChecksum}) of a file as it is written, by a read of its own: reads it back (from the page cache) behind
 * the writer, up to what the writer has written ({@link WriteProgress}). It is the hash of the bytes in the
 * file, not of a buffer. {@link FollowedOutput} uses it only when the read-back ({@link TrailingVerify}),
 * which hashes the file as it reads it, stopped short.
 */
final class TrailingChecksum {
    private TrailingChecksum() {
    }

    /** Reads {@code file} behind its writer until the writer closes it; returns the hash of all of it. */
    static String run(Path file, WriteProgress progress, OutputChecksum checksum) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = checksum.newDigest();
            byte[] buf = new byte[1 << 20];
            long pos = 0;
            for (long size; (size = progress.awaitBeyond(pos)) >= 0; ) {
                while (pos < size) {
                    if (progress.cancelled()) throw new CancellationException("the output was abandoned");
                    int n = in.read(buf, 0, (int) Math.min(buf.length, size - pos));
                    if (n < 0) throw new IOException(file + ": ends at " + pos + " bytes, " + size + " were written");
                    md.update(buf, 0, n);
                    pos += n;
                }
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": read back failed: " + e.getMessage(), e));
        }
    }
}
