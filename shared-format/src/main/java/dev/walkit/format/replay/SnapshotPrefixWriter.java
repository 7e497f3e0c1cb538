package dev.walkit.format.replay;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordSink;

import java.io.IOException;
import java.util.Arrays;

/**
 * The one writer of a snapshot prefix (docs/format.md §6), the rule {@link SnapshotPrefix} reads written once: the
 * marker at the compact revision with the count of the records that follow, then each record flagged SNAPSHOT, keys
 * in ascending byte order, each once, as many as the marker counts. Every writer of the snapshot form writes through
 * it (an etcd db's and kine's WAL forms, walmigrate's --out-wal, walrecover's snapshot form); a record out of order
 * or a count that does not match is a bug of the caller's, thrown as one, never a prefix the replay would refuse.
 */
public final class SnapshotPrefixWriter {
    private final RecordSink out;
    private final long count;
    private long written;
    private byte[] last;

    private SnapshotPrefixWriter(RecordSink out, long count) {
        this.out = out;
        this.count = count;
    }

    /** Writes the marker at {@code compactRevision} counting {@code count} records to {@code out}; returns the writer of those records. */
    public static SnapshotPrefixWriter begin(RecordSink out, long compactRevision, long count) throws IOException {
        out.append(RecordEncoder.snapshotMarker(compactRevision, count));
        return new SnapshotPrefixWriter(out, count);
    }

    /**
     * The records of a prefix whose count is not known until they are written (walmigrate spools them, then writes
     * the marker before them with {@link #marker}): the same checks, no marker.
     */
    public static SnapshotPrefixWriter recordsOnly(RecordSink out) {
        return new SnapshotPrefixWriter(out, -1);
    }

    /** The marker alone, for records written apart ({@link #recordsOnly}, or kept byte for byte by walrecover's history form). */
    public static KeyValue marker(long compactRevision, long count) {
        return RecordEncoder.snapshotMarker(compactRevision, count);
    }

    /** The next record (its flags made SNAPSHOT, its value given). */
    public void append(KeyValue kv) throws IOException {
        out.append(next(kv));
    }

    /** The next record, its value {@code valueLength} bytes not read (to a sink that reads none). */
    public void append(KeyValue kv, int valueLength) throws IOException {
        if (out.readsValues()) out.append(next(kv));
        else out.append(next(kv), valueLength);
    }

    /** How many records were written. */
    public long written() {
        return written;
    }

    /** The prefix is complete: as many records as the marker counts. */
    public void end() {
        if (count >= 0 && written != count) throw new IllegalStateException("snapshot prefix: the marker counts " + count + " records, " + written + " were written");
    }

    private KeyValue next(KeyValue kv) {
        if (kv.isDelete()) throw new IllegalArgumentException("snapshot prefix: a DELETE is no record of it");
        if (last != null && Arrays.compareUnsigned(last, kv.key()) >= 0) {
            throw new IllegalArgumentException("snapshot prefix: keys must ascend, each once (" + written + " records written)");
        }
        last = kv.key();
        written++;
        return kv.flags() == Flags.SNAPSHOT ? kv : kv.withFlags(Flags.SNAPSHOT);
    }
}
