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

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    static byte[] copy(ByteBuffer src, int index, int length) {
        byte[] out = new byte[length];
        if (length < LOOP_BELOW) {
            int i = 0;
            if (src.order() == java.nio.ByteOrder.LITTLE_ENDIAN) {
                for (; i + 8 <= length; i += 8) LONGS.set(out, i, src.getLong(index + i));
            }
            for (; i < length; i++) out[i] = src.get(index + i);
        } else {
            src.get(index, out);
        }
        return out;
    }
}
