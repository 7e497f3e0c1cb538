package dev.walkit.format.replay;

import dev.walkit.format.CrcRange;
import dev.walkit.format.Flags;
import dev.walkit.format.KvFields;
import dev.walkit.format.LogItem;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalEntry;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Up to {@link #CAPACITY} consecutive results of a v2 reader, handed from the reading thread to replay
 * ({@link BatchReader}), with no object per record for a <em>plain record</em>: an ordinary record
 * (not a snapshot record) whose stored CRC is over the standard range. Its fields are kept in arrays,
 * its key in one array of key bytes, and its key's hash ({@link KeyTable#hash}) is computed on the
 * reading thread. {@link Replayer#applyPlain} applies a whole transaction of them within the batch
 * ({@link #transactionEnd}) when replay takes it as it is; anything else is made a {@link WalEntry}
 * ({@link #item}) and grouped and replayed as ever. Every other result (damage, snapshot records, a
 * CRC accepted over a buggy range) is kept as its {@link LogItem}.
 *
 * <p>Batches are reused: a batch handed back to the reader is overwritten.
 */
final class RecordBatch {
    static final int CAPACITY = 1024;

    /** Non-null: a result kept as it is; null: a plain record, in the arrays. */
    final LogItem[] items = new LogItem[CAPACITY];
    final long[] offset = new long[CAPACITY];
    final int[] length = new int[CAPACITY];
    final int[] flags = new int[CAPACITY];
    final long[] revision = new long[CAPACITY];
    final long[] createRevision = new long[CAPACITY];
    final long[] version = new long[CAPACITY];
    final long[] lease = new long[CAPACITY];
    final long[] valueOffset = new long[CAPACITY];
    final int[] valueLength = new int[CAPACITY];
    final int[] keyStart = new int[CAPACITY];
    final int[] keyLength = new int[CAPACITY];
    final int[] keyHash = new int[CAPACITY];
    /** The keys of the plain records, one after the other. */
    byte[] keys = new byte[64 << 10];
    private int keysUsed;
    int size;

    boolean full() {
        return size == CAPACITY;
    }

    void clear() {
        Arrays.fill(items, 0, size, null);
        size = 0;
        keysUsed = 0;
    }

    /** Adds a result kept as it is. */
    void add(LogItem item) {
        items[size++] = item;
    }

    /** Whether {@code v} (a decoded v2 record) is a plain record. */
    static boolean plain(RecordView v) {
        return !v.isSnapshot() && v.crcRange() == CrcRange.STANDARD;
    }

    /**
     * The index after the closing record (no TXN_CONT) of the transaction that starts with plain record
     * {@code i}, when every record up to it is plain and of the same revision: as grouping would make
     * it. -1 when the transaction does not close that way within this batch.
     */
    int transactionEnd(int i) {
        long rev = revision[i];
        for (int j = i; j < size; j++) {
            if (items[j] != null || revision[j] != rev) return -1;
            if (!Flags.isTxnCont(flags[j])) return j + 1;
        }
        return -1;
    }

    /** Adds a plain record ({@link #plain}): its fields, a copy of its key and the key's hash. */
    void addPlain(RecordView v) {
        KvFields f = v.fields();
        ByteBuffer buf = v.buffer();
        int n = size++;
        int kl = f.keyLength();
        if (keysUsed + kl > keys.length) keys = Arrays.copyOf(keys, Math.max(keys.length * 2, keysUsed + kl));
        buf.get(f.keyStart(), keys, keysUsed, kl);
        keyStart[n] = keysUsed;
        keyLength[n] = kl;
        keyHash[n] = KeyTable.hash(buf, f.keyStart(), kl);
        keysUsed += kl;
        offset[n] = v.offset();
        length[n] = (int) v.length();
        flags[n] = v.flags();
        revision[n] = f.modRevision();
        createRevision[n] = f.createRevision();
        version[n] = f.version();
        lease[n] = f.lease();
        valueOffset[n] = v.valueFileOffset();
        valueLength[n] = f.valueLength();
    }

    /** The result at {@code i} as a {@link LogItem}: a plain record made the {@link WalEntry} {@link WalEntry#of} gives. */
    LogItem item(int i) {
        LogItem it = items[i];
        if (it != null) return it;
        byte[] key = Arrays.copyOfRange(keys, keyStart[i], keyStart[i] + keyLength[i]);
        return new WalEntry(offset[i], length[i], flags[i], revision[i], key, createRevision[i], version[i], lease[i],
                valueOffset[i], valueLength[i], CrcRange.STANDARD);
    }
}
