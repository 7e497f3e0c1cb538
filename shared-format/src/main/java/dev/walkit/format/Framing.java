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

    /**
     * With {@link #firstByteMask}: bits that must be clear in the byte 8 after a header's start (v2:
     * rec_len's top byte, which a rec_len under the maximum keeps small), repeated in each byte; 0 when
     * there is no such rule.
     */
    default long ninthByteMask() {
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
            public long ninthByteMask() {
                // rec_len is little-endian at 5..8: its top byte is at most maxRecLen >>> 24 (and a
                // negative rec_len has bit 7 set). Every bit above that bound's highest bit must be clear.
                int top = maxRecLen >>> 24;
                int allowed = top == 0 ? 0 : (Integer.highestOneBit(top) << 1) - 1;
                return (~allowed & 0xFFL) * 0x0101_0101_0101_0101L;
            }

            /**
             * {@link HeaderCheck#check} == OK, as one expression with a single branch. Resync runs this at
             * every candidate offset of garbage inside one long loop, compiled once (on-stack replacement);
             * with HeaderCheck's early returns, every kind of failure that garbage brings and the profile
             * had not seen sent the compiled loop back to the interpreter (an "unstable if" trap), again and
             * again: 100 MiB of random bytes took ≈ 1 s cold against 0.33 s warm.
             */
            @Override
            public long plausibleFrame(ByteBuffer buf, int index, long remaining) {
                long recLen = buf.getInt(index + RecordLayout.REC_LEN_OFFSET);
                long keyOffset = buf.getShort(index + RecordLayout.KEY_OFFSET_OFFSET) & 0xFFFF;
                long modRevOffset = buf.getShort(index + RecordLayout.MOD_REV_OFFSET_OFFSET) & 0xFFFF;
                long frame = RecordLayout.recordLength(recLen);
                // Each term's sign bit is set when its rule is broken.
                long broken = -(long) (buf.get(index) & Flags.RESERVED_MASK)          // reserved flag bits
                        | recLen                                                    // rec_len < 0
                        | (maxRecLen - recLen)                                      // rec_len > max
                        | (keyOffset - HeaderCheck.MIN_KEY_OFFSET)                  // key_offset < 2
                        | (recLen - keyOffset)                                      // key_offset > rec_len
                        | (modRevOffset - 1)                                        // mod_rev_offset < 1
                        | (recLen - 1 - modRevOffset)                               // mod_rev_offset >= rec_len
                        | (remaining - frame);                                      // past the end of the file
                return broken < 0 ? -1 : frame;
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
