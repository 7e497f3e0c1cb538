package dev.walkit.format.kine;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordSink;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.SnapshotPrefixWriter;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyVersions;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A kine database's history as a WAL (docs/format.md §6), so that the one replay engine reads it: each row is a
 * revision (its id), in id order; kine's own rows (compact_rev_key, gap-*) are not data. The rows at or below
 * the compact revision (compact_rev_key's prev_revision) are what kine's compaction left: each key's latest
 * there, unless deleted, is the snapshot prefix; every row above it is a transaction of one record: a create
 * (created=1: create_revision is its id), an update (create_revision as stored), or a delete. kine keeps no
 * version: each key's is counted from the first of its rows kept, 1 in the prefix for a create and 2, a lower bound,
 * for a key whose create the compaction removed; 1 at a create (a row whose
 * create_revision is its own id) or after a delete, one more at each update; by a sink that keeps each key's state
 * (replay: {@link RecordSink#countsVersions}), else here by the same rule. The lease is kine's lease column, the TTL in seconds (kine's lease ID is its TTL).
 */
public final class KineHistoryWal {
    /**
     * The version given to a key whose create row kine's compaction removed: at least a create and this update. Its
     * true version is unknown (kine keeps none); every later update counts on from it, a lower bound too.
     */
    public static final long LOWER_BOUND_VERSION = 2;

    /** What the conversion found. */
    public record Summary(long rows, long compactRevision, long snapshotKeys, long lastRevision, List<String> unreadable) {
        /** {@code unreadable}: the rows SQLite could not read (a damaged page of the table), each as a report line names them. */
        public Summary {
            unreadable = List.copyOf(unreadable);
        }

        /**
         * The db as the one account names it ({@link dev.walkit.format.account.Store}): its size, its rows, its own
         * facts, and {@code damage} (what SQLite's check found, then the rows it could not read).
         */
        public dev.walkit.format.account.Store store(java.nio.file.Path path, long bytes, List<String> damage, String walFacts) {
            return new dev.walkit.format.account.Store(dev.walkit.format.account.Store.Kind.KINE, path, bytes, "kine", rows, -1,
                    String.format("SQLite, %d row(s), %s; kine keeps no version: versions counted from the rows kept; a lease is its TTL", rows, walFacts), damage);
        }
    }

    /**
     * kine's rows in id order, from the id given, from the table itself (not an index): id, name, created and deleted as bits 0 and 1 of one column, create_revision, lease, the
     * value. A column fewer is a native call fewer a row (the driver's calls are half the read).
     */
    static final String ROWS = "SELECT id, CAST(name AS BLOB), " + KineRows.FLAGS + ", create_revision, lease, value FROM kine NOT INDEXED"
            + " WHERE id >= ? ORDER BY id";
    /**
     * {@link #ROWS} with each value's length in bytes (from bit 2 of the flags column) in place of its bytes: SQLite
     * reads a blob's from the row's header (length() of a text counts characters: one stored as text, which kine does
     * not write, is measured as bytes).
     */
    static final String ROWS_VALUE_LENGTHS = "SELECT id, CAST(name AS BLOB), " + KineRows.FLAGS
            + " | (ifnull(CASE typeof(value) WHEN 'text' THEN length(CAST(value AS BLOB)) ELSE length(value) END, 0) << 2),"
            + " create_revision, lease FROM kine NOT INDEXED WHERE id >= ? ORDER BY id";
    private static final byte[] NO_VALUE = new byte[0];

    private KineHistoryWal() {
    }

    /** Writes {@code db}'s WAL form to {@code out} (created; not fsynced: a private working copy). */
    public static Summary write(KineDb db, Path out) throws IOException {
        // A private working copy, read at once and deleted: never fsynced.
        WalWriter w = WalWriter.create(out);
        Summary s;
        try {
            s = emit(db, w::append);
        } finally {
            w.closeWithoutFsync();
        }
        if (!db.salvageInstead(s.unreadable(), s.rows())) return s;
        // SQLite read around a damaged page of the table; its pages hold more rows: the form again, from them.
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
     * only (SQLite then reads none).
     */
    public static Summary emit(KineDb db, RecordSink w) throws IOException {
        try {
            Rows e = new Rows(w, KineLive.compactRevision(db.connection()));
            List<String> unreadable = new ArrayList<>();
            try (KineRows read = KineRows.start(db, e.values ? ROWS : ROWS_VALUE_LENGTHS, e.values)) {
                for (KineRows.Batch b; (b = read.next()) != null; read.done(b)) {
                    for (int i = 0; i < b.size; i++) e.row(b, i);
                }
                if (!e.prefixWritten) writePrefix(w, e.compact, e.snapshot);
                for (KineRows.Unreadable u : read.unreadable()) unreadable.add(u.toString());
            }
            return new Summary(e.rows, e.compact, e.snapshot.size(), e.last, unreadable);
        } catch (SQLException e) {
            throw new IOException(db.source() + ": not a kine database: " + e.getMessage(), e);
        }
    }

    /**
     * Rows to records, one call a row: a method of its own, compiled after a few thousand rows (as the body of the
     * batch loop it ran interpreted until on-stack replacement).
     */
    private static final class Rows {
        final RecordSink w;
        final long compact;
        final boolean values;
        /** Else counted here, by the same rule (RecordSink.countsVersions). */
        final boolean counts;
        final TreeMap<byte[], Rec> snapshot = new TreeMap<>(KeyIndex.KEY_ORDER);
        final KeyVersions versions = new KeyVersions();
        long rows;
        long last;
        boolean prefixWritten;

        Rows(RecordSink w, long compact) {
            this.w = w;
            this.compact = compact;
            this.values = w.readsValues();
            this.counts = w.countsVersions();
            this.last = compact;
            this.prefixWritten = compact <= 0;
        }

        void row(KineRows.Batch b, int i) throws IOException {
            long id = b.id[i];
            byte[] key = b.name[i];
            if (key == null || KineDb.internal(key)) return;
            boolean deleted = b.deleted[i];
            long create = b.created[i] || b.createRevision[i] == 0 ? id : b.createRevision[i];
            long lease = b.lease[i];
            byte[] value = values && b.value[i] != null ? b.value[i] : NO_VALUE;
            int valueLength = b.valueLength[i];
            rows++;
            if (id <= compact) {
                if (deleted) {
                    snapshot.remove(key);
                    if (!counts) versions.delete(key);
                } else {
                    // A key's latest row at the compact revision: version 1 when it is the create; else its earlier
                    // rows are gone with the compaction, and 2 is a lower bound (a create and this update), which
                    // the tools mark as one (LOWER_BOUND_VERSION).
                    long version = create == id ? 1 : LOWER_BOUND_VERSION;
                    snapshot.put(key, new Rec(KeyValue.put(key, create, id, version, value, lease), valueLength));
                    if (!counts) versions.set(key, version);
                }
                return;
            }
            if (!prefixWritten) {
                writePrefix(w, compact, snapshot);
                prefixWritten = true;
            }
            last = id;
            if (deleted) {
                if (!counts) versions.delete(key);
                w.append(KeyValue.delete(key, id));
                return;
            }
            // A create is a row whose create_revision is its own id (kine's created, or none stored).
            long version = counts ? 0 : versions.put(key, create == id);
            KeyValue kv = KeyValue.put(key, create, id, version, value, lease);
            if (values) w.append(kv);
            else w.append(kv, valueLength);
        }
    }

    private static void writePrefix(RecordSink w, long compact, TreeMap<byte[], Rec> snapshot) throws IOException {
        SnapshotPrefixWriter prefix = SnapshotPrefixWriter.begin(w, compact, snapshot.size());
        for (Rec r : snapshot.values()) prefix.append(r.kv(), r.valueLength());
        prefix.end();
    }

    /** A row's record: its value, or (to a sink that reads none) its length. */
    private record Rec(KeyValue kv, int valueLength) {
    }
}
