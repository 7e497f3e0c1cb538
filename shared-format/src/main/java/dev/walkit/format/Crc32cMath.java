package dev.walkit.format;

/**
 * CRC-32C algebra over GF(2), after zlib's {@code crc32_combine}: for byte strings A and B,
 * {@code crc(AB) = shift(crc(A), |B|) ^ crc(B)}, where {@code shift(c, n)} multiplies by
 * x^(8n) modulo the (reflected) Castagnoli polynomial.
 *
 * <p>The reader's resync uses it to check the CRC of a candidate record in time independent of
 * the record's length: from CRC checkpoints, {@code crc([a,b)) = C(b) ^ shift(C(a), b-a)}.
 */
public final class Crc32cMath {
    /** Reflected CRC-32C polynomial. */
    private static final int POLY = 0x82F63B78;
    /** X2N[k] = x^(2^k) mod p. */
    private static final int[] X2N = new int[32];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int k = 1; k < 32; k++) {
            p = multModP(p, p);
            X2N[k] = p;
        }
    }

    private Crc32cMath() {
    }

    /** a * b modulo p, reflected (bit 31 is x^0). */
    public static int multModP(int a, int b) {
        int m = 1 << 31;
        int p = 0;
        for (;;) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) break;
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return p;
    }

    /** x^(8n) mod p: the operator that shifts a CRC over n zero bytes' worth of degree. */
    public static int xPow8n(long n) {
        int p = 1 << 31; // x^0
        int k = 3;
        while (n != 0) {
            if ((n & 1) != 0) p = multModP(X2N[k & 31], p);
            n >>>= 1;
            k++;
        }
        return p;
    }

    /** crc(AB) from crc(A), crc(B) and |B|. */
    public static int combine(int crcA, int crcB, long lengthB) {
        return multModP(xPow8n(lengthB), crcA) ^ crcB;
    }

    /** {@code shift(crc, n)} with a precomputed operator from {@link #xPow8n}. */
    public static int shift(int crc, int op) {
        return multModP(op, crc);
    }
}
