package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * The cheap plausibility layer of a v2 header, run before any CRC (docs/format.md §3, §7 "bad
 * header"): reserved flag bits, rec_len against the maximum and the bytes left, offsets in range.
 */
enum HeaderCheck {
    OK,
    /** Fewer than 9 bytes left. */
    HEADER_CUT,
    RESERVED_FLAGS,
    REC_LEN_TOO_LARGE,
    OFFSETS_OUT_OF_RANGE,
    /** A plausible header whose record runs past the end of the file. */
    PAST_EOF,
    /** Plausible, but longer than the read window and no CRC matches: the reader does not trust its length. */
    UNVERIFIED_LARGE;

    /** Smallest key_offset of any valid encoding: tag and a one-byte length. */
    static final int MIN_KEY_OFFSET = 2;

    static HeaderCheck check(ByteBuffer buf, int index, long remaining, int maxRecLen) {
        if (remaining < RecordLayout.HEADER_LENGTH) return HEADER_CUT;
        if ((buf.get(index) & Flags.RESERVED_MASK) != 0) return RESERVED_FLAGS;
        int recLen = buf.getInt(index + RecordLayout.REC_LEN_OFFSET);
        if (recLen < 0 || recLen > maxRecLen) return REC_LEN_TOO_LARGE;
        int keyOffset = buf.getShort(index + RecordLayout.KEY_OFFSET_OFFSET) & 0xFFFF;
        int modRevOffset = buf.getShort(index + RecordLayout.MOD_REV_OFFSET_OFFSET) & 0xFFFF;
        if (keyOffset < MIN_KEY_OFFSET || keyOffset > recLen || modRevOffset < 1 || modRevOffset >= recLen) {
            return OFFSETS_OUT_OF_RANGE;
        }
        if (RecordLayout.recordLength(recLen) > remaining) return PAST_EOF;
        return OK;
    }

    static String describe(HeaderCheck c, ByteBuffer buf, int index, long remaining, int maxRecLen) {
        return switch (c) {
            case OK -> "header plausible";
            case HEADER_CUT -> "header cut short: " + remaining + " of " + RecordLayout.HEADER_LENGTH + " bytes";
            case RESERVED_FLAGS -> String.format("reserved flag bits set: flags 0x%02x", buf.get(index) & 0xFF);
            case REC_LEN_TOO_LARGE -> "rec_len " + Integer.toUnsignedString(buf.getInt(index + RecordLayout.REC_LEN_OFFSET))
                    + " exceeds the maximum " + maxRecLen;
            case OFFSETS_OUT_OF_RANGE -> "offsets out of range: key_offset " + (buf.getShort(index + 1) & 0xFFFF)
                    + ", mod_rev_offset " + (buf.getShort(index + 3) & 0xFFFF) + ", rec_len " + buf.getInt(index + 5);
            case PAST_EOF -> "record of " + RecordLayout.recordLength(buf.getInt(index + RecordLayout.REC_LEN_OFFSET))
                    + " bytes runs past the end of the file (" + remaining + " bytes left)";
            case UNVERIFIED_LARGE -> "rec_len " + buf.getInt(index + RecordLayout.REC_LEN_OFFSET) + " and no CRC that matches";
        };
    }
}
