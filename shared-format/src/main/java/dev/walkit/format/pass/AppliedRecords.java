package dev.walkit.format.pass;

import java.util.Arrays;

/**
 * Every record replay applied, in the order applied: its file offset, its revision, whether it is a DELETE,
 * and the previous applied record of the same key, so that each key's history is a chain through these
 * columns rather than an object with arrays of its own. 12 bytes a record in the usual case (offsets and
 * revisions packed as differences, {@link PackedLongs}; the DELETE flag rides on the link): the 13 M records
 * of a 6 GiB log take 160 MB. The ordinary transactions applied are the ids of their first records (4 bytes
 * each): a transaction's revision and offset are its first record's, and its records run on from there.
 */
final class AppliedRecords {
    private static final int SHIFT = PackedLongs.SHIFT;
    private static final int MASK = PackedLongs.MASK;
    private static final int DELETE = 0x8000_0000;

    private final PackedLongs offsets = new PackedLongs();
    private final PackedLongs revisions = new PackedLongs();
    /** The previous record's id + 1 (0: none), with {@link #DELETE} set for a DELETE. */
    private int[][] links = new int[1][];
    private int size;
    private int[][] transactions = new int[1][];
    private int transactionCount;

    /** Appends a record; returns its id. */
    int add(long offset, long revision, boolean delete, int prev) {
        offsets.add(offset);
        revisions.add(revision);
        links = append(links, size, (prev + 1) | (delete ? DELETE : 0));
        return size++;
    }

    /** {@code a} with {@code v} at {@code index} (the next free one), grown as needed. */
    private static int[][] append(int[][] a, int index, int v) {
        int c = index >>> SHIFT;
        int i = index & MASK;
        if (c == a.length) a = Arrays.copyOf(a, c * 2);
        if (a[c] == null) a[c] = new int[c == 0 ? 1024 : PackedLongs.CHUNK];
        else if (i == a[c].length) a[c] = Arrays.copyOf(a[c], Math.min(PackedLongs.CHUNK, i * 2));
        a[c][i] = v;
        return a;
    }

    /** The ordinary transaction whose {@code records} records were the last added is applied. */
    void transactionApplied(int records) {
        transactions = append(transactions, transactionCount++, size - records);
    }

    int transactionCount() {
        return transactionCount;
    }

    /** The id of the first record of ordinary transaction {@code i}. */
    int transactionStart(int i) {
        return transactions[i >>> SHIFT][i & MASK];
    }

    int size() {
        return size;
    }

    long offset(int id) {
        return offsets.get(id);
    }

    long revision(int id) {
        return revisions.get(id);
    }

    boolean isDelete(int id) {
        return (links[id >>> SHIFT][id & MASK] & DELETE) != 0;
    }

    /** The key's applied record before {@code id}, or -1. */
    int previous(int id) {
        return (links[id >>> SHIFT][id & MASK] & ~DELETE) - 1;
    }
}
