package dev.walkit.recover;

import dev.walkit.format.scan.Background;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * A recovery WAL being written, and the threads that follow it behind the writer: its read-back, which also
 * hashes it ({@link TrailingVerify}), and its writeback ({@link TrailingSync}). When the writer closes it, each
 * has little left to do. When the read-back stops short (a file the light replay does not take), the SHA-256
 * is a read of its own ({@link TrailingSha256}).
 */
final class FollowedOutput {
    private final WriteProgress progress = new WriteProgress();
    private final CompletableFuture<String> checksum;
    private final CompletableFuture<TrailingVerify.ReadBack> readBack;
    private final CompletableFuture<Void> sync;

    FollowedOutput(Path file, OutputChecksum checksum) {
        this(file, TrailingSync.STEP, checksum);
    }

    /**
     * With {@code durable} false, a file that is not the output but what the output is made from (the verified WAL an
     * etcd or kine db is written from): read back and hashed, never forced to disk.
     */
    FollowedOutput(Path file, OutputChecksum checksum, boolean durable) {
        this(file, durable ? TrailingSync.STEP : -1, checksum);
    }

    /** With the data forced to disk each {@code syncStep} bytes written (below 0: never). */
    FollowedOutput(Path file, long syncStep, OutputChecksum checksum) {
        readBack = Background.start("walrecover-read-back", () -> TrailingVerify.run(file, progress, checksum));
        // On a thread of its own, not a stage run by whichever thread completes the read-back: if that were
        // this one (a read-back done before this line), it would wait here for bytes it is to write.
        this.checksum = Background.start("walrecover-checksum", () -> {
            String hashed = readBack.join().checksum();
            return hashed != null ? hashed : TrailingChecksum.run(file, progress, checksum);
        });
        sync = syncStep < 0 ? CompletableFuture.completedFuture(null) : Background.start("walrecover-fsync", () -> TrailingSync.run(file, progress, syncStep));
    }

    /** The writer has written the file up to {@code size} bytes, a record boundary (for {@code WalWriter.onFlush}). */
    void written(long size) {
        progress.written(size);
    }

    /** The writer closed the file at {@code size} bytes. */
    void closed(long size) {
        progress.close(size);
    }

    /** The file is abandoned: the followers stop. */
    void cancel() {
        progress.cancel();
    }

    /** The SHA-256 of the closed file. */
    String checksum() throws IOException {
        return Background.join(checksum, "the output's checksum");
    }

    /** The state digest the closed file replays to, or null when the light replay did not take it. */
    String stateDigest() throws IOException {
        return Background.join(readBack, "the read-back of the output").stateDigest();
    }

    /** Whether the read-back hashed the file as it read it (else {@link #sha256} read it again). */
    boolean hashedByReadBack() throws IOException {
        return Background.join(readBack, "the read-back of the output").checksum() != null;
    }

    /** Waits until the closed file is fsynced. */
    void synced() throws IOException {
        Background.join(sync, "fsync");
    }
}
