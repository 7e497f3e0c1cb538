package dev.walkit.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The page's SHA-256 of its input, read through one buffer: the same digest as of the whole file's bytes. */
class FileSha256Test {
    @Test
    void aFileOfSeveralBuffersAndAPartOneHashesAsItsBytes(@TempDir Path dir) throws Exception {
        for (int size : new int[] {0, 1, (1 << 20) - 1, 1 << 20, (5 << 19) + 7}) {
            byte[] bytes = new byte[size];
            new Random(size).nextBytes(bytes);
            Path f = dir.resolve("f" + size);
            Files.write(f, bytes);
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), FileSha256.of(f), "size " + size);
        }
    }
}
