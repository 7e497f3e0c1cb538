package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * Varints: the fixed-width overlong forms of the canonical writer (docs/format.md §3), decoded by
 * mask-and-shift, and general protobuf base-128 varints.
 *
 * <p>Every buffer handed to the codec is in little-endian order ({@link WalFile} and the encoder
 * make theirs so).
 *
 * <p>An n-byte overlong varint holds 7 bits per byte, least significant group first; every byte
 * but the last has its top bit set. Key length 3 is {@code 83 80 80 00}.
 */
public final class Varints {
    /** Result of a failed general decode: the position is returned negative. */
    public static final int MALFORMED = -1;

    private static final int CONT4 = 0x0080_8080;
    private static final int MASK4_TOP = 0x8080_8080;
    private static final long CONT8 = 0x0080_8080_8080_8080L;
    private static final long MASK8_TOP = 0x8080_8080_8080_8080L;

    private Varints() {
    }

    /** True when the 4 bytes at {@code index} have the overlong continuation pattern 1,1,1,0. */
    public static boolean isOverlong4(ByteBuffer buf, int index) {
        return (buf.getInt(index) & MASK4_TOP) == CONT4;
    }

    /** True when the 8 bytes at {@code index} have the overlong continuation pattern 1×7,0. */
    public static boolean isOverlong8(ByteBuffer buf, int index) {
        return (buf.getLong(index) & MASK8_TOP) == CONT8;
    }

    /** Decodes an 8-byte overlong varint (caller checked {@link #isOverlong8}). */
    public static long decodeOverlong8(ByteBuffer buf, int index) {
        long v = buf.getLong(index);
        return (v & 0x7FL)
                | ((v >>> 1) & (0x7FL << 7))
                | ((v >>> 2) & (0x7FL << 14))
                | ((v >>> 3) & (0x7FL << 21))
                | ((v >>> 4) & (0x7FL << 28))
                | ((v >>> 5) & (0x7FL << 35))
                | ((v >>> 6) & (0x7FL << 42))
                | ((v >>> 7) & (0x7FL << 49));
    }

    /** Writes {@code value} (below 2^28) as a 4-byte overlong varint. */
    public static void putOverlong4(ByteBuffer buf, int index, int value) {
        if (value < 0 || value >= (1 << 28)) {
            throw new IllegalArgumentException("value does not fit a 4-byte varint: " + value);
        }
        for (int i = 0; i < 3; i++) {
            buf.put(index + i, (byte) (((value >>> (7 * i)) & 0x7F) | 0x80));
        }
        buf.put(index + 3, (byte) ((value >>> 21) & 0x7F));
    }

    /** Writes {@code value} (0 to below 2^56) as an 8-byte overlong varint. */
    public static void putOverlong8(ByteBuffer buf, int index, long value) {
        if (value < 0 || value >= (1L << 56)) {
            throw new IllegalArgumentException("value does not fit an 8-byte varint: " + value);
        }
        for (int i = 0; i < 7; i++) {
            buf.put(index + i, (byte) (((value >>> (7 * i)) & 0x7F) | 0x80));
        }
        buf.put(index + 7, (byte) ((value >>> 49) & 0x7F));
    }

    /** Bytes of the shortest varint for {@code value} (negative values take 10). */
    public static int sizeOf(long value) {
        if (value < 0) return 10;
        int n = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes the shortest varint of {@code value} at {@code index}; returns the index after it. */
    public static int putVarint(ByteBuffer buf, int index, long value) {
        while ((value & ~0x7FL) != 0) {
            buf.put(index++, (byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        buf.put(index++, (byte) value);
        return index;
    }

    /**
     * A general varint read, bounded by {@code limit}. Stores the value in {@code out[0]} and returns
     * the index after it, or {@link #MALFORMED} when the varint runs past {@code limit} or past 10
     * bytes (protobuf's rule).
     */
    public static int readVarint(ByteBuffer buf, int index, int limit, long[] out) {
        long result = 0;
        for (int shift = 0, i = index; shift < 70; shift += 7, i++) {
            if (i >= limit) return MALFORMED;
            byte b = buf.get(i);
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                out[0] = result;
                return i + 1;
            }
        }
        return MALFORMED;
    }
}
