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
    /**
     * X2N[k] = x^(2^k) mod p, for every bit of a long length (k = 3 + bit). Not cyclic with period 32:
     * for the Castagnoli polynomial x^(2^31) = x, so zlib's {@code k & 31} for CRC-32 would be wrong here.
     */
    private static final int[] X2N = new int[3 + 64];
    /** BYTE_POW[k][v] = x^(8 * v * 256^k) mod p: {@link #xPow8n} of a length below 2^40 in five products. */
    private static final int[][] BYTE_POW = new int[5][256];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int k = 1; k < X2N.length; k++) {
            p = multModP(p, p);
            X2N[k] = p;
        }
        for (int k = 0; k < BYTE_POW.length; k++) {
            int step = xPow8nSlow(1L << (8 * k));
            BYTE_POW[k][0] = 1 << 31; // x^0
            for (int v = 1; v < 256; v++) BYTE_POW[k][v] = multModP(step, BYTE_POW[k][v - 1]);
        }
    }

    private Crc32cMath() {
    }

    /**
     * a * b modulo p, reflected (bit 31 is x^0). Without data-dependent branches: resync runs it for
     * every candidate header in garbage, where branches on random bits would mispredict half the time.
     */
    public static int multModP(int a, int b) {
        int p = 0;
        for (int i = 31; i >= 0; i--) {
            p ^= b & -((a >>> i) & 1);
            b = (b >>> 1) ^ (POLY & -(b & 1));
        }
        return p;
    }

    /** x^(8n) mod p: the operator that shifts a CRC over n zero bytes' worth of degree. */
    public static int xPow8n(long n) {
        if (n >>> 40 != 0) return xPow8nSlow(n);
        int p = BYTE_POW[0][(int) (n & 0xFF)];
        for (int k = 1; k < BYTE_POW.length && (n >>>= 8) != 0; k++) {
            int v = (int) (n & 0xFF);
            if (v != 0) p = multModP(BYTE_POW[k][v], p);
        }
        return p;
    }

    /** {@link #xPow8n} by squares: any n, and how the tables are made. */
    static int xPow8nSlow(long n) {
        int p = 1 << 31; // x^0
        int k = 3;
        while (n != 0) {
            if ((n & 1) != 0) p = multModP(X2N[k], p);
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
