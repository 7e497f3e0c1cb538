package dev.walkit.recover;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.CleanReplay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CancellationException;

/**
 * The read-back of a recovery WAL as it is written: a thread ({@link FollowedOutput}) reads the file (from
 * the page cache, through a handle of its own) behind the writer, up to what the writer has written
 * ({@link WriteProgress}: a record boundary each time), replays it with the light replay ({@link CleanReplay})
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
            WalReader reader = new WalReader(file, ro);
            CleanReplay replay = CleanReplay.forDigest();
            for (long size; (size = progress.awaitBeyond(file.size())) >= 0; ) {
                file.extendTo(size);
                if (!readOn(reader, replay, progress)) return new ReadBack(null, null);
            }
            String stateDigest = replay.end() ? replay.digest(file::readFully) : null;
            MessageDigest all = file.digestOfAll();
            return new ReadBack(stateDigest, all == null ? null : HexFormat.of().formatHex(all.digest()));
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(path + ": read back failed: " + e.getMessage(), e));
        }
    }

    /** Replays the records up to the file's size as it is now; false if the light replay does not take them. */
    private static boolean readOn(WalReader reader, CleanReplay replay, WriteProgress progress) {
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (!(x instanceof RecordView v)) {
                replay.damage(((DamageSpan) x).offset());
                return false;
            }
            if (!replay.accept(v)) return false;
            if (progress.cancelled()) throw new CancellationException("the output was abandoned");
        }
        return true;
    }
}
