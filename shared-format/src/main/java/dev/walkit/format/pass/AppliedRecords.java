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
final class AppliedRecords implements AppliedColumns {
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

    /** An ordinary transaction applied whose first record is {@code firstId} (a saved history restored). */
    void transactionStarts(int firstId) {
        transactions = append(transactions, transactionCount++, firstId);
    }

    @Override
    public int transactionCount() {
        return transactionCount;
    }

    /** The id of the first record of ordinary transaction {@code i}. */
    @Override
    public int transactionStart(int i) {
        return transactions[i >>> SHIFT][i & MASK];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long offset(int id) {
        return offsets.get(id);
    }

    @Override
    public long revision(int id) {
        return revisions.get(id);
    }

    @Override
    public boolean isDelete(int id) {
        return (links[id >>> SHIFT][id & MASK] & DELETE) != 0;
    }

    /** The key's applied record before {@code id}, or -1. */
    @Override
    public int previous(int id) {
        return (links[id >>> SHIFT][id & MASK] & ~DELETE) - 1;
    }

    /** The offsets column, for a saved index. */
    PackedLongs offsets() {
        return offsets;
    }

    /** The revisions column, for a saved index. */
    PackedLongs revisions() {
        return revisions;
    }

    /** Takes a run of ints: an array and how many of its first ones. */
    @FunctionalInterface
    interface IntsSink {
        void put(int[] a, int n) throws java.io.IOException;
    }

    /** Every record's link as stored (the previous record's id + 1, the DELETE flag in the top bit), in chunks. */
    void writeLinks(IntsSink out) throws java.io.IOException {
        writeChunks(links, size, out);
    }

    /** Every ordinary transaction's first record's id, in chunks. */
    void writeTransactions(IntsSink out) throws java.io.IOException {
        writeChunks(transactions, transactionCount, out);
    }

    private static void writeChunks(int[][] a, int n, IntsSink out) throws java.io.IOException {
        for (int c = 0; (long) c << SHIFT < n; c++) out.put(a[c], Math.min(PackedLongs.CHUNK, n - (c << SHIFT)));
    }
}
