package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * Layout of the legacy format v1 record (docs/format.md §8), read-only. Little-endian:
 *
 * <pre>
 * offset   size  field
 * 0        8     revision   u64
 * 8        4     key_len    u32
 * 12       4     val_len    u32
 * 16       1     flags      bit 0 = DELETE, other bits zero
 * 17       K     key
 * 17+K     V     value
 * 17+K+V   4     crc        CRC-32C over every byte before it
 * </pre>
 */
public final class LegacyV1 {
    public static final int REVISION_OFFSET = 0;
    public static final int KEY_LEN_OFFSET = REVISION_OFFSET + 8;
    public static final int VAL_LEN_OFFSET = KEY_LEN_OFFSET + 4;
    public static final int FLAGS_OFFSET = VAL_LEN_OFFSET + 4;
    public static final int HEADER_LENGTH = FLAGS_OFFSET + 1;
    public static final int CRC_LENGTH = 4;
    /** Keys are below 64 KiB in both formats. */
    public static final int MAX_KEY_LEN = 0xFFFF;

    private LegacyV1() {
    }

    /** Frame length of a plausible v1 header at {@code index}, or -1. */
    static long plausibleFrame(ByteBuffer buf, int index, long remaining, int maxRecLen) {
        if (remaining < HEADER_LENGTH) return -1;
        int flags = buf.get(index + FLAGS_OFFSET) & 0xFF;
        if ((flags & ~Flags.DELETE) != 0) return -1;
        long revision = buf.getLong(index + REVISION_OFFSET);
        if (revision <= 0 || revision >= (1L << 56)) return -1;
        int keyLen = buf.getInt(index + KEY_LEN_OFFSET);
        int valLen = buf.getInt(index + VAL_LEN_OFFSET);
        if (keyLen < 1 || keyLen > MAX_KEY_LEN || valLen < 0 || valLen > maxRecLen) return -1;
        long frame = (long) HEADER_LENGTH + keyLen + valLen + CRC_LENGTH;
        return frame <= remaining ? frame : -1;
    }

    /** Why a v1 header at {@code index} is not plausible (for damage details). */
    static String describe(ByteBuffer buf, int index, long remaining, int maxRecLen) {
        if (remaining < HEADER_LENGTH) return "header cut short: " + remaining + " of " + HEADER_LENGTH + " bytes";
        int flags = buf.get(index + FLAGS_OFFSET) & 0xFF;
        if ((flags & ~Flags.DELETE) != 0) return String.format("reserved flag bits set: flags 0x%02x", flags);
        long revision = buf.getLong(index + REVISION_OFFSET);
        if (revision <= 0 || revision >= (1L << 56)) return "implausible revision " + Long.toUnsignedString(revision);
        int keyLen = buf.getInt(index + KEY_LEN_OFFSET);
        int valLen = buf.getInt(index + VAL_LEN_OFFSET);
        if (keyLen < 1 || keyLen > MAX_KEY_LEN || valLen < 0 || valLen > maxRecLen) {
            return "implausible lengths: key_len " + Integer.toUnsignedString(keyLen) + ", val_len " + Integer.toUnsignedString(valLen);
        }
        return "record of " + ((long) HEADER_LENGTH + keyLen + valLen + CRC_LENGTH) + " bytes runs past the end of the file ("
                + remaining + " bytes left)";
    }
}
