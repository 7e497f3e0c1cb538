package dev.walkit.format.etcd;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordSink;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.SnapshotPrefixWriter;
import dev.walkit.format.replay.KeyIndex;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * An etcd db's MVCC history as a WAL (docs/format.md §6), so that the one replay engine reads every store:
 * what the db keeps at or below its compact revision C (each key's latest revision there, unless a tombstone)
 * is the snapshot prefix, a marker with revision C and the keys in byte order; each main revision above C is
 * one transaction of its records in sub-revision order (TXN_CONT on all but the last), a tombstone a DELETE.
 * The fields are etcd's own (create_revision, version, lease as stored), so replay checks them by the WAL's
 * rules: a db that breaks them is reported as a log would be. A db that was never compacted has no prefix.
 */
public final class EtcdDbWal {
    /** What the conversion found: the revisions written, the first and last main revision, the damage. */
    public record Summary(long revisions, long transactions, long snapshotKeys, long compactRevision, long lastRevision) {
    }

    private EtcdDbWal() {
    }

    /** Writes {@code db}'s WAL form to {@code out} (created; not fsynced: a private working copy). */
    public static Summary write(EtcdDb db, Path out) throws IOException {
        // A private working copy, read at once and deleted: never fsynced (a 1 GiB db's copy would wait for its writeback).
        WalWriter w = WalWriter.create(out);
        try {
            Summary s = emit(db, w::append);
            if (!db.readAgain()) return s;
        } finally {
            w.closeWithoutFsync();
        }
        // The tree could not be taken whole: the form is written again from the salvage past it.
        java.nio.file.Files.delete(out);
        w = WalWriter.create(out);
        try {
            return emit(db, w::append);
        } finally {
            w.closeWithoutFsync();
        }
    }

    /**
     * Gives {@code db}'s WAL form, record by record, to {@code w}; to a sink that reads no value, each value's length
     * only (none is copied out of the db). When {@link EtcdDb#readAgain} then says the tree was not the whole answer,
     * the caller gives the form again to a fresh sink: the salvage past the tree.
     */
    public static Summary emit(EtcdDb db, RecordSink w) throws IOException {
        long compact = db.compactRevision();
        boolean values = w.readsValues();
        TreeMap<byte[], Rec> snapshot = new TreeMap<>(KeyIndex.KEY_ORDER);
        List<Rec> pending = new ArrayList<>();
        long[] counts = new long[3]; // revisions, transactions, last main
        long[] pendingMain = {-1};
        // A data directory's member/wal with entries past the db's consistent index: the keys' state is kept as the
        // db's revisions go by, then those entries are applied to it, as etcd applies them at its next start.
        EtcdWal.Read etcdWal = db.etcdWal();
        java.util.TreeMap<byte[], RaftApply.Kv> live = etcdWal != null && !etcdWal.entries().isEmpty() ? RaftApply.newState() : null;
        {
            IOException[] failed = {null};
            // Records at or below C are held until the first above it (the bucket is in revision order), then
            // written as the prefix; above C, a transaction is written when the next main revision begins.
            boolean[] prefixWritten = {compact <= 0};
            db.revisions((main, sub, tombstone, page, kv) -> {
                if (failed[0] != null) return;
                byte[] key = kv.key(page);
                counts[0]++;
                if (live != null) {
                    if (tombstone) live.remove(key);
                    else live.put(key, new RaftApply.Kv(key, kv.createRevision(), main, kv.version(), kv.lease(), kv.value(page)));
                }
                Rec r = tombstone ? new Rec(KeyValue.delete(key, main), 0)
                        : new Rec(KeyValue.put(key, kv.createRevision(), main, kv.version(), values ? kv.value(page) : NO_VALUE, kv.lease()),
                                kv.valueLength());
                if (main <= compact) {
                    if (tombstone) snapshot.remove(key);
                    else snapshot.put(key, r);
                    return;
                }
                try {
                    if (!prefixWritten[0]) {
                        writePrefix(w, compact, snapshot);
                        prefixWritten[0] = true;
                    }
                    if (main != pendingMain[0]) {
                        flush(w, pending, counts);
                        pendingMain[0] = main;
                    }
                    pending.add(r);
                    counts[2] = main;
                } catch (IOException e) {
                    failed[0] = e;
                }
            });
            if (failed[0] != null) throw failed[0];
            if (!prefixWritten[0]) writePrefix(w, compact, snapshot);
            flush(w, pending, counts);
        }
        if (live != null) {
            long top = Math.max(1, Math.max(counts[2], compact)); // an empty store is at revision 1: its first write is 2
            RaftApply.Result r = new RaftApply(live, db.leases(), top).apply(etcdWal.entries());
            db.applied(r);
            long rev = top;
            for (List<RaftApply.Write> writes : r.revisions) {
                rev++;
                for (RaftApply.Write x : writes) {
                    counts[0]++;
                    pending.add(x.kv() == null ? new Rec(KeyValue.delete(x.key(), rev), 0)
                            : new Rec(KeyValue.put(x.key(), x.kv().createRevision(), rev, x.kv().version(), values ? x.kv().value() : NO_VALUE, x.kv().lease()),
                            x.kv().value().length));
                }
                flush(w, pending, counts);
                counts[2] = rev;
            }
        }
        return new Summary(counts[0], counts[1], snapshot.size(), compact, Math.max(counts[2], compact));
    }

    private static final byte[] NO_VALUE = new byte[0];

    /** A record held until its transaction (or the prefix) is written: its value, or (to a sink that reads none) its length. */
    private record Rec(KeyValue kv, int valueLength) {
        void to(RecordSink w, int flags) throws IOException {
            KeyValue k = flags == kv.flags() ? kv : kv.withFlags(flags); // most transactions are one record: as made
            if (w.readsValues()) w.append(k);
            else w.append(k, valueLength);
        }
    }

    private static void writePrefix(RecordSink w, long compact, TreeMap<byte[], Rec> snapshot) throws IOException {
        SnapshotPrefixWriter prefix = SnapshotPrefixWriter.begin(w, compact, snapshot.size());
        for (Rec r : snapshot.values()) prefix.append(r.kv(), r.valueLength());
        prefix.end();
    }

    private static void flush(RecordSink w, List<Rec> txn, long[] counts) throws IOException {
        for (int i = 0; i < txn.size(); i++) {
            Rec r = txn.get(i);
            r.to(w, (r.kv().isDelete() ? Flags.DELETE : 0) | (i < txn.size() - 1 ? Flags.TXN_CONT : 0));
        }
        if (!txn.isEmpty()) counts[1]++;
        txn.clear();
    }
}
