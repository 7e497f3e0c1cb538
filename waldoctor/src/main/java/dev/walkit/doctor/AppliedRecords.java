package dev.walkit.doctor;

/**
 * Every record replay applied, in the order applied: its file offset, its revision (negative: a DELETE)
 * and the previous applied record of the same key, so that each key's history is a chain through these
 * columns rather than an object with arrays of its own. 20 bytes a record, in chunks of 2^20 entries
 * (no copy of the whole when it grows; a 6 GiB log of 12 M records takes 240 MB).
 */
final class AppliedRecords {
    private static final int SHIFT = 20;
    private static final int CHUNK = 1 << SHIFT;
    private static final int MASK = CHUNK - 1;

    private long[][] offsets = new long[1][];
    private long[][] revisions = new long[1][];
    private int[][] previous = new int[1][];
    private int size;

    /** Appends a record; returns its id. */
    int add(long offset, long revision, boolean delete, int prev) {
        int c = size >>> SHIFT;
        if (c == offsets.length) {
            offsets = java.util.Arrays.copyOf(offsets, c * 2);
            revisions = java.util.Arrays.copyOf(revisions, c * 2);
            previous = java.util.Arrays.copyOf(previous, c * 2);
        }
        if (offsets[c] == null) {
            // The first chunk starts small: most logs a test or a shell opens are far below 2^20 records.
            int n = c == 0 ? 1024 : CHUNK;
            offsets[c] = new long[n];
            revisions[c] = new long[n];
            previous[c] = new int[n];
        } else if (c == 0 && size == offsets[0].length) {
            int n = Math.min(CHUNK, size * 2);
            offsets[0] = java.util.Arrays.copyOf(offsets[0], n);
            revisions[0] = java.util.Arrays.copyOf(revisions[0], n);
            previous[0] = java.util.Arrays.copyOf(previous[0], n);
        }
        int i = size & MASK;
        offsets[c][i] = offset;
        revisions[c][i] = delete ? -revision : revision;
        previous[c][i] = prev;
        return size++;
    }

    int size() {
        return size;
    }

    long offset(int id) {
        return offsets[id >>> SHIFT][id & MASK];
    }

    long revision(int id) {
        return Math.abs(revisions[id >>> SHIFT][id & MASK]);
    }

    boolean isDelete(int id) {
        return revisions[id >>> SHIFT][id & MASK] < 0;
    }

    /** The key's applied record before {@code id}, or -1. */
    int previous(int id) {
        return previous[id >>> SHIFT][id & MASK];
    }
}
