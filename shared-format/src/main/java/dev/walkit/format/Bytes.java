package dev.walkit.format;

import java.nio.ByteBuffer;

/** Copies out of a buffer, choosing the cheaper way by size. */
final class Bytes {
    /**
     * Below this, a loop of intrinsified single-byte loads beats the bulk copy, whose memory-copy call
     * costs more than a short key (measured: key copies were the top frame of a replay).
     */
    private static final int LOOP_BELOW = 128;

    private Bytes() {
    }

    static byte[] copy(ByteBuffer src, int index, int length) {
        byte[] out = new byte[length];
        if (length < LOOP_BELOW) {
            for (int i = 0; i < length; i++) out[i] = src.get(index + i);
        } else {
            src.get(index, out);
        }
        return out;
    }
}
