package dev.walkit.format.pass;

import java.util.Arrays;

/**
 * An append-only column of longs that are close together (file offsets in file order, revisions of applied
 * records): chunks of 2^20 values, each its first value and an int of difference per value, 4 bytes a value;
 * a chunk whose values spread further than an int reaches is widened to longs (a chunk of records averaging
 * over 2 KiB, or revisions that jump), 8 bytes a value there. No copy of the whole when it grows.
 */
final class PackedLongs {
    static final int SHIFT = 20;
    static final int CHUNK = 1 << SHIFT;
    static final int MASK = CHUNK - 1;
    /** The first chunk starts this small (most logs a shell opens are far below 2^20 records) and doubles. */
    private static final int FIRST = 1024;

    private long[] base = new long[1];
    private int[][] narrow = new int[1][];
    private long[][] wide = new long[1][];
    private int size;

    void add(long v) {
        int c = size >>> SHIFT;
        int i = size & MASK;
        if (c == base.length) {
            base = Arrays.copyOf(base, c * 2);
            narrow = Arrays.copyOf(narrow, c * 2);
            wide = Arrays.copyOf(wide, c * 2);
        }
        if (i == 0) {
            base[c] = v;
            narrow[c] = new int[c == 0 ? FIRST : CHUNK];
        } else if (wide[c] == null && i == narrow[c].length) {
            narrow[c] = Arrays.copyOf(narrow[c], Math.min(CHUNK, i * 2));
        } else if (wide[c] != null && i == wide[c].length) {
            wide[c] = Arrays.copyOf(wide[c], Math.min(CHUNK, i * 2));
        }
        if (wide[c] == null) {
            long d = v - base[c];
            if (d == (int) d) {
                narrow[c][i] = (int) d;
                size++;
                return;
            }
            widen(c, i);
        }
        wide[c][i] = v;
        size++;
    }

    /** Chunk {@code c}, of {@code n} values so far, as longs from now on. */
    private void widen(int c, int n) {
        long[] w = new long[narrow[c].length];
        for (int j = 0; j < n; j++) w[j] = base[c] + narrow[c][j];
        wide[c] = w;
        narrow[c] = null;
    }

    long get(int index) {
        int c = index >>> SHIFT;
        long[] w = wide[c];
        return w != null ? w[index & MASK] : base[c] + narrow[c][index & MASK];
    }

    int size() {
        return size;
    }

    /** How many chunks hold values. */
    int chunks() {
        return (size + MASK) >>> SHIFT;
    }

    /** How many values chunk {@code c} holds. */
    int chunkSize(int c) {
        return Math.min(CHUNK, size - (c << SHIFT));
    }

    /** Chunk {@code c}'s first value, which its narrow values are differences from. */
    long base(int c) {
        return base[c];
    }

    /** Chunk {@code c}'s differences from its base, or null when the chunk is wide. */
    int[] narrow(int c) {
        return wide[c] == null ? narrow[c] : null;
    }

    /** Chunk {@code c}'s values, or null when the chunk is narrow. */
    long[] wide(int c) {
        return wide[c];
    }
}
