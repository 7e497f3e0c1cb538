package dev.walkit.format.bbolt;

import java.nio.ByteBuffer;

/** FNV-1a, 64 bits: bbolt's meta checksum (Go's hash/fnv New64a). */
final class Fnv64a {
    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fnv64a() {
    }

    static long of(ByteBuffer b, int from, int length) {
        long h = OFFSET_BASIS;
        for (int i = from; i < from + length; i++) {
            h ^= b.get(i) & 0xff;
            h *= PRIME;
        }
        return h;
    }
}
