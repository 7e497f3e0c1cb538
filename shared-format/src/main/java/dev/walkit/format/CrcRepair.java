package dev.walkit.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The one damaged byte of a record whose CRC-32C fails, found from the CRC itself. CRC-32C is linear: a record whose
 * byte at distance d before the end of the covered range is XORed with e fails by the syndrome
 * {@code shift(T[e], d)} (T the CRC's byte table, shift the step over a zero byte), whatever the record holds. So the
 * syndrome (computed CRC XOR stored CRC), stepped back byte by byte, names the position and the error value when one
 * byte is wrong; one byte wrong in the stored CRC itself gives a syndrome within that byte. Bit rot and a single
 * flipped bit are one byte; damage wider than a byte gives no answer, never a wrong one: a candidate counts only when
 * the patched record's CRC matches and it is the only candidate.
 */
public final class CrcRepair {
    /** The byte at {@code position} (from the record's start) held {@code original}; it now holds {@code damaged}. */
    public record Repair(int position, byte original, byte damaged) {
    }

    private static final int POLY = 0x82F63B78;
    private static final int[] T = new int[256];
    /** TOP[b] = the index i whose T[i] has b as its top byte (unique for this polynomial): how a step is undone. */
    private static final int[] TOP = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int k = 0; k < 8; k++) c = (c >>> 1) ^ (POLY & -(c & 1));
            T[i] = c;
        }
        java.util.Arrays.fill(TOP, -1);
        for (int i = 0; i < 256; i++) {
            if (TOP[T[i] >>> 24] != -1) throw new IllegalStateException("CRC table top bytes not unique");
            TOP[T[i] >>> 24] = i;
        }
    }

    private CrcRepair() {
    }

    /** e with T[e] == s, or -1 (T[0] == 0: the zero error is not an error). */
    private static int errorOf(int s) {
        int i = TOP[s >>> 24];
        return i > 0 && T[i] == s ? i : -1;
    }

    /** The step over one zero byte, undone. */
    private static int unstep(int c) {
        int i = TOP[c >>> 24];
        return ((c ^ T[i]) << 8) | i;
    }

    /**
     * The single byte of the record at {@code index} of {@code buf} (kv_bytes of {@code recLen}, all present) whose
     * change makes its {@code range} CRC match: null when the CRC matches already, or no single byte (or more than one)
     * does. {@code buf} is not changed.
     */
    public static Repair singleByte(ByteBuffer buf, int index, int recLen, CrcRange range) {
        int crcAt = RecordLayout.crcOffset(recLen);
        int start = range.start();
        int n = crcAt - start;
        ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        int actual = range.compute(crc, b.duplicate(), index, recLen);
        int stored = b.getInt(index + crcAt);
        int syndrome = actual ^ stored;
        if (syndrome == 0) return null;
        Repair found = null;
        int candidates = 0;
        for (int k = 0; k < RecordLayout.CRC_LENGTH; k++) {
            if ((syndrome & ~(0xFF << (8 * k))) == 0) {
                byte now = b.get(index + crcAt + k);
                found = new Repair(crcAt + k, (byte) (now ^ (syndrome >>> (8 * k))), now);
                candidates++;
            }
        }
        int s = syndrome;
        for (int d = 0; d < n; d++) {
            int e = errorOf(s);
            if (e > 0) {
                int at = start + n - 1 - d;
                byte now = b.get(index + at);
                found = new Repair(at, (byte) (now ^ e), now);
                candidates++;
            }
            s = unstep(s);
        }
        if (candidates != 1 || !matchesWith(b, index, recLen, range, found)) return null;
        return found;
    }

    /** Whether the record's CRC matches with {@code r}'s original byte put back (on a copy). */
    private static boolean matchesWith(ByteBuffer b, int index, int recLen, CrcRange range, Repair r) {
        int len = RecordLayout.OVERHEAD + recLen;
        ByteBuffer copy = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        copy.put(b.duplicate().position(index).limit(index + len)).flip();
        copy.put(r.position(), r.original());
        return range.compute(new CRC32C(), copy.duplicate(), 0, recLen) == copy.getInt(RecordLayout.crcOffset(recLen));
    }

    /** The record's bytes with {@code r} undone: a copy. */
    public static byte[] repaired(byte[] record, Repair r) {
        byte[] out = record.clone();
        out[r.position()] = r.original();
        return out;
    }
}
