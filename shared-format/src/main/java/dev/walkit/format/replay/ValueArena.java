package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The values of a run of keys (in key order, as a snapshot writes them), read from the file in offset order,
 * values less than {@link StateDigest#GAP} apart in one positional read of up to {@link StateDigest#RUN}
 * bytes, as {@link StateDigest} reads them; held in one array. A snapshot of a 2 GiB generated log reads
 * 377 k values scattered through it: one read each was 377 k system calls (1.6 s of the snapshot's 1.9 s).
 */
public final class ValueArena {
    /** The most value bytes one arena holds: a snapshot takes its keys in chunks of at most this many. */
    public static final int MAX_BYTES = 64 << 20;

    private final byte[] bytes;
    /** Where key {@code i}'s value starts in {@link #bytes}; its end is {@code starts[i + 1]}. */
    private final int[] starts;

    private ValueArena(byte[] bytes, int[] starts) {
        this.bytes = bytes;
        this.starts = starts;
    }

    /**
     * Where the chunk that starts at {@code from} ends: the index after its last key, at most {@link #MAX_BYTES}
     * of values (at least one key, whatever its size) and fewer than 2^{@value StateDigest#INDEX_BITS} keys.
     */
    public static int chunkEnd(List<? extends KeyState> keys, int from) {
        long total = 0;
        int to = from;
        while (to < keys.size() && to - from < (1 << StateDigest.INDEX_BITS) - 1) {
            int len = keys.get(to).valueLength();
            if (to > from && total + len > MAX_BYTES) break;
            total += len;
            to++;
        }
        return to;
    }

    /** Reads the values of {@code keys[from, to)} (a {@link #chunkEnd} chunk). */
    public static ValueArena read(List<? extends KeyState> keys, int from, int to, StateDigest.Source file) {
        int n = to - from;
        int[] starts = new int[n + 1];
        long[] packed = new long[n];
        boolean packable = true;
        for (int i = 0; i < n; i++) {
            KeyState k = keys.get(from + i);
            starts[i + 1] = starts[i] + k.valueLength();
            packable &= k.valueOffset() < (1L << StateDigest.OFFSET_BITS);
            packed[i] = (k.valueOffset() << StateDigest.INDEX_BITS) | i;
        }
        byte[] bytes = new byte[starts[n]];
        if (!packable) {
            for (int i = 0; i < n; i++) {
                KeyState k = keys.get(from + i);
                file.readFully(ByteBuffer.wrap(bytes, starts[i], k.valueLength()), k.valueOffset());
            }
            return new ValueArena(bytes, starts);
        }
        StateDigest.sortByOffset(packed);
        int mask = (1 << StateDigest.INDEX_BITS) - 1;
        ByteBuffer buf = ByteBuffer.allocateDirect(StateDigest.RUN);
        for (int a = 0, b; a < n; a = b) {
            int first = (int) (packed[a] & mask);
            long start = keys.get(from + first).valueOffset();
            long end = start + keys.get(from + first).valueLength();
            for (b = a + 1; b < n; b++) {
                KeyState k = keys.get(from + (int) (packed[b] & mask));
                long o = k.valueOffset();
                long e = o + k.valueLength();
                if (o - end >= StateDigest.GAP || e - start > StateDigest.RUN) break;
                end = Math.max(end, e);
            }
            if (end - start > buf.capacity()) buf = ByteBuffer.allocateDirect((int) (end - start));
            buf.clear().limit((int) (end - start));
            file.readFully(buf, start);
            for (int c = a; c < b; c++) {
                int i = (int) (packed[c] & mask);
                KeyState k = keys.get(from + i);
                buf.get((int) (k.valueOffset() - start), bytes, starts[i], k.valueLength());
            }
        }
        return new ValueArena(bytes, starts);
    }

    /** A copy of the value of key {@code from + i}. */
    public byte[] value(int i) {
        return java.util.Arrays.copyOfRange(bytes, starts[i], starts[i + 1]);
    }
}
