package dev.walkit.recover;

import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.pass.ReadBehind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The read-back of a recovery WAL as it is written: a thread ({@link FollowedOutput}) reads the file (from
 * the page cache, through a handle of its own) behind the writer, up to what the writer has written
 * ({@link WriteProgress}: a record boundary each time), replays it with the light replay (the pass's {@link ReadBehind})
 * and hashes it as it reads it ({@link WalFile#digestAsRead}). When the writer closes the file, only its last
 * bytes are left to read, then the state digest. Read back after the close, a 2 GiB output took 1.7 s more,
 * on both cores; hashed by a thread reading the file again, 0.2 s more (interleaved, 9 rounds: 4.66 s
 * instead of 4.46 s, CPU 8.41 s instead of 8.17 s).
 */
final class TrailingVerify {
    private TrailingVerify() {
    }

    /**
     * What the read-back gives.
     *
     * @param stateDigest the state digest of what the file holds, or null when the light replay did not take it
     *                    (damage, an incomplete transaction, ...): the caller then replays the file in full to say why
     * @param checksum    the checksum of the file, or null when the read-back stopped before its end
     */
    record ReadBack(String stateDigest, String checksum) {
    }

    /** Reads {@code path} behind its writer until the writer closes it. */
    static ReadBack run(Path path, WriteProgress progress, OutputChecksum checksum) {
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile file = WalFile.follow(path, ro.maxRecLen())) {
            file.digestAsRead(checksum.newDigest());
            ReadBehind replay = new ReadBehind(file);
            for (long size; (size = progress.awaitBeyond(file.size())) >= 0; ) {
                file.extendTo(size);
                if (!replay.readOn(progress::cancelled)) return new ReadBack(null, null);
            }
            String stateDigest = replay.end();
            MessageDigest all = file.digestOfAll();
            return new ReadBack(stateDigest, all == null ? null : HexFormat.of().formatHex(all.digest()));
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(path + ": read back failed: " + e.getMessage(), e));
        }
    }
}
