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

    @Test
    void theTableOperatorIsTheOperatorBySquaresForAnyLength() {
        Random r = new Random(2);
        for (int i = 0; i < 20_000; i++) {
            long n = switch (i % 4) {
                case 0 -> r.nextInt(1 << 16);
                case 1 -> r.nextLong() >>> 24;                    // up to 2^40
                case 2 -> (1L << r.nextInt(45)) + r.nextInt(3) - 1; // around powers of two, past the table
                default -> r.nextLong() >>> 1;
            };
            assertEquals(Crc32cMath.xPow8nSlow(n), Crc32cMath.xPow8n(n), "n " + n);
        }
    }

    @Test
    void shiftingByATotalIsShiftingByItsParts() {
        // x^(8(a+b)) = x^(8a) * x^(8b), for lengths far past 2^32 bytes: what a period-32 shortcut gets wrong.
        Random r = new Random(4);
        for (int i = 0; i < 5_000; i++) {
            long a = r.nextLong() >>> (2 + r.nextInt(40));
            long b = r.nextLong() >>> (2 + r.nextInt(40));
            assertEquals(Crc32cMath.xPow8n(a + b), Crc32cMath.multModP(Crc32cMath.xPow8n(a), Crc32cMath.xPow8n(b)), a + " + " + b);
        }
    }

    @Test
    void aLongCombineMatchesTheCrcOfTheWhole() {
        byte[] data = new byte[5 << 20];
        new Random(3).nextBytes(data);
        int split = 1234567;
        assertEquals(crc(data, 0, data.length), Crc32cMath.combine(crc(data, 0, split), crc(data, split, data.length - split), data.length - split));
    }

    private static int crc(byte[] d, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(d, off, len);
        return (int) c.getValue();
    }
}
