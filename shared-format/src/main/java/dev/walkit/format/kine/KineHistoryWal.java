package dev.walkit.format.kine;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordSink;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.KeyIndex;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A kine database's history as a WAL (docs/format.md §6), so that the one replay engine reads it: each row is a
 * revision (its id), in id order; kine's own rows (compact_rev_key, gap-*) are not data. The rows at or below
 * the compact revision (compact_rev_key's prev_revision) are what kine's compaction left: each key's latest
 * there, unless deleted, is the snapshot prefix; every row above it is a transaction of one record: a create
 * (created=1: create_revision is its id), an update (create_revision as stored), or a delete. kine keeps no
 * version: each key's is counted here from the first of its rows kept (1 at a create or in the prefix). The
 * lease is kine's lease column, the TTL in seconds (kine's lease ID is its TTL).
 */
public final class KineHistoryWal {
    /** What the conversion found. */
    public record Summary(long rows, long compactRevision, long snapshotKeys, long lastRevision) {
    }

    static final String ROWS = "SELECT id, CAST(name AS BLOB), created, deleted, create_revision, lease, value FROM kine ORDER BY id";

    private KineHistoryWal() {
    }

    /** The compact revision kine recorded (0: none). */
    static long compactRevision(KineDb db) throws SQLException {
        try (Statement s = db.connection().createStatement();
             ResultSet r = s.executeQuery("SELECT prev_revision FROM kine WHERE CAST(name AS BLOB) = CAST('compact_rev_key' AS BLOB) ORDER BY id DESC LIMIT 1")) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    /** Writes {@code db}'s WAL form to {@code out} (created; not fsynced: a private working copy). */
    public static Summary write(KineDb db, Path out) throws IOException {
        // A private working copy, read at once and deleted: never fsynced.
        WalWriter w = WalWriter.create(out);
        try {
            return emit(db, w::append);
        } finally {
            w.closeWithoutFsync();
        }
    }

    /** Gives {@code db}'s WAL form, record by record, to {@code w}. */
    public static Summary emit(KineDb db, RecordSink w) throws IOException {
        try {
            long compact = compactRevision(db);
            TreeMap<byte[], KeyValue> snapshot = new TreeMap<>(KeyIndex.KEY_ORDER);
            Map<ByteBuffer, Long> versions = new HashMap<>();
            long rows = 0;
            long last = compact;
            boolean prefixWritten = compact <= 0;
            try (Statement s = db.connection().createStatement();
                 ResultSet r = s.executeQuery(ROWS)) {
                while (r.next()) {
                    long id = r.getLong(1);
                    byte[] key = r.getBytes(2);
                    if (key == null || KineDb.internal(key)) continue;
                    boolean created = r.getInt(3) != 0;
                    boolean deleted = r.getInt(4) != 0;
                    long create = created || r.getLong(5) == 0 ? id : r.getLong(5);
                    long lease = r.getLong(6);
                    byte[] value = r.getBytes(7);
                    if (value == null) value = new byte[0];
                    rows++;
                    ByteBuffer k = ByteBuffer.wrap(key);
                    if (id <= compact) {
                        if (deleted) {
                            snapshot.remove(key);
                            versions.remove(k);
                        } else {
                            snapshot.put(key, KeyValue.put(key, create, id, 1, value, lease));
                            versions.put(k, 1L);
                        }
                        continue;
                    }
                    if (!prefixWritten) {
                        writePrefix(w, compact, snapshot);
                        prefixWritten = true;
                    }
                    last = id;
                    if (deleted) {
                        versions.remove(k);
                        w.append(KeyValue.delete(key, id));
                    } else {
                        Long before = created ? null : versions.get(k);
                        long version = before == null ? 1 : before + 1;
                        versions.put(k, version);
                        w.append(KeyValue.put(key, create, id, version, value, lease));
                    }
                }
                if (!prefixWritten) writePrefix(w, compact, snapshot);
            }
            return new Summary(rows, compact, snapshot.size(), last);
        } catch (SQLException e) {
            throw new IOException(db.source() + ": not a kine database: " + e.getMessage(), e);
        }
    }

    private static void writePrefix(RecordSink w, long compact, TreeMap<byte[], KeyValue> snapshot) throws IOException {
        w.append(RecordEncoder.snapshotMarker(compact, snapshot.size()));
        for (KeyValue kv : snapshot.values()) w.append(kv.withFlags(Flags.SNAPSHOT));
    }
}
