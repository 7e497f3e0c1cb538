package dev.walkit.format;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The combine algebra against java.util.zip.CRC32C, every split of lengths 1..1024 at an odd offset. */
class Crc32cMathTest {
    @Test
    void combineMatchesCrcOfTheConcatenation() {
        byte[] data = new byte[1024 + 3];
        new Random(1).nextBytes(data);
        for (int len = 1; len <= 1024; len++) {
            int split = len / 3;
            int whole = crc(data, 3, len);
            int a = crc(data, 3, split);
            int b = crc(data, 3 + split, len - split);
            assertEquals(whole, Crc32cMath.combine(a, b, len - split), "len " + len);
            assertEquals(b, whole ^ Crc32cMath.shift(a, Crc32cMath.xPow8n(len - split)), "uncombine, len " + len);
        }
    }

    private static int crc(byte[] d, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(d, off, len);
        return (int) c.getValue();
    }
}
