package dev.walkit.recover;

import dev.walkit.format.scan.Background;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The hash read behind a writer is the hash of the whole file, however the writes are cut. */
class TrailingChecksumTest {
    @TempDir
    Path dir;

    @Test
    void hashesTheFileAsItGrows() throws Exception {
        Path f = dir.resolve("out");
        byte[] all = new byte[5 << 20];
        new Random(7).nextBytes(all);
        long size = 0;
        try (OutputStream out = Files.newOutputStream(f)) {
            WriteProgress progress = new WriteProgress();
            CompletableFuture<String> hash = Background.start("test-sha256", () -> TrailingChecksum.run(f, progress, OutputChecksum.SHA256));
            Random r = new Random(8);
            while (size < all.length) {
                int n = (int) Math.min(all.length - size, 1 + r.nextInt(700_000));
                out.write(all, (int) size, n);
                out.flush();
                size += n;
                progress.written(size);
            }
            progress.close(size);
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(all)), Background.join(hash, "the hash"));
        }
    }

    @Test
    void anAbandonedFileIsNotHashed() throws Exception {
        Path f = Files.write(dir.resolve("out"), new byte[1 << 20]);
        WriteProgress progress = new WriteProgress();
        CompletableFuture<String> hash = Background.start("test-sha256", () -> TrailingChecksum.run(f, progress, OutputChecksum.SHA256));
        progress.written(1 << 20);
        progress.cancel();
        assertThrows(java.util.concurrent.CancellationException.class, () -> Background.join(hash, "the hash"));
    }
}
