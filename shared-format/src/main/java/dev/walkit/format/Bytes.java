package dev.walkit.format;

import java.nio.ByteBuffer;

/** Copies out of a buffer. */
final class Bytes {
    private Bytes() {
    }

    /**
     * {@code length} bytes of {@code src} from {@code index}, in one bulk copy whatever the length. A loop
     * of 8-byte stores for short keys and the bulk copy for the rest made a branch that compiled code saw
     * go one way (keys) and then the other (a value): each first time threw the caller's compiled code
     * away, five times in a 2 GiB salvage.
     */
    static byte[] copy(ByteBuffer src, int index, int length) {
        byte[] out = new byte[length];
        src.get(index, out);
        return out;
    }
}
