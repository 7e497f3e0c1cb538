package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * What resync needs to know of a record layout: whether a header at a position is plausible, and
 * then the whole frame's length. In both formats the CRC is the last 4 bytes of the frame and
 * covers everything before it.
 */
interface Framing {
    /** Bytes of the header (what must be readable to judge it). */
    int headerLength();

    /** Smallest possible frame. */
    int minFrame();

    /** The frame length of a plausible header at {@code index}, or -1. */
    long plausibleFrame(ByteBuffer buf, int index, long remaining);

    /**
     * Bits that must be clear in a header's first byte, repeated in each byte of a long (0: no such
     * rule): resync skips eight offsets at once when every byte has one of them set.
     */
    default long firstByteMask() {
        return 0;
    }

    /** v2: {@link HeaderCheck}. */
    static Framing v2(int maxRecLen) {
        return new Framing() {
            @Override
            public int headerLength() {
                return RecordLayout.HEADER_LENGTH;
            }

            @Override
            public int minFrame() {
                return RecordLayout.OVERHEAD + HeaderCheck.MIN_KEY_OFFSET;
            }

            @Override
            public long firstByteMask() {
                return 0xF8F8_F8F8_F8F8_F8F8L; // Flags.RESERVED_MASK in every byte
            }

            @Override
            public long plausibleFrame(ByteBuffer buf, int index, long remaining) {
                if ((buf.get(index) & Flags.RESERVED_MASK) != 0) return -1;
                if (HeaderCheck.check(buf, index, remaining, maxRecLen) != HeaderCheck.OK) return -1;
                return RecordLayout.recordLength(buf.getInt(index + RecordLayout.REC_LEN_OFFSET));
            }
        };
    }

    /** Legacy v1: {@link LegacyV1#plausibleFrame}. */
    static Framing v1(int maxRecLen) {
        return new Framing() {
            @Override
            public int headerLength() {
                return LegacyV1.HEADER_LENGTH;
            }

            @Override
            public int minFrame() {
                return LegacyV1.HEADER_LENGTH + 1 + LegacyV1.CRC_LENGTH;
            }

            @Override
            public long plausibleFrame(ByteBuffer buf, int index, long remaining) {
                return LegacyV1.plausibleFrame(buf, index, remaining, maxRecLen);
            }
        };
    }
}
