package dev.walkit.format.output;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A live set as kine's {@code state.db}: the schema kine v0.6.5 creates for SQLite (its table and five indexes, as
 * the real kine makes them); one row per live key at its own revisions (kine's id is the mod revision; a key created
 * there has created=1, else its create_revision), the lease column its TTL (kine's lease ID is its TTL), and kine's own
 * rows: {@code compact_rev_key} (the last revision recorded as compacted: the history before it is not in the
 * database) and a {@code gap-} row (kine's own filler) at the live set's revision when no key's row is there, so that
 * kine's revision (its greatest id) is the source's and a watcher never sees the store go back. kine has one row a
 * revision: a key that shares its mod revision with another (one transaction of several keys) is written after the
 * last revision, and the notes say so. Written through a {@link Writer} on a temp file (in rollback-journal mode,
 * synchronous FULL) that the caller fsyncs and renames in ({@link OutputDir}); kine starts from it as from its own (it
 * turns WAL mode on itself).
 */
public final class KineOutput {
    /** kine's database file in its directory (k3s: {@code server/db/state.db}). */
    public static final String FILE = "state.db";
    static final String[] SCHEMA = {
        "CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name INTEGER, created INTEGER, deleted INTEGER,"
            + " create_revision INTEGER, prev_revision INTEGER, lease INTEGER, value BLOB, old_value BLOB)",
        "CREATE INDEX kine_name_index ON kine (name)",
        "CREATE INDEX kine_name_id_index ON kine (name,id)",
        "CREATE INDEX kine_id_deleted_index ON kine (id,deleted)",
        "CREATE INDEX kine_prev_revision_index ON kine (prev_revision)",
        "CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision)",
    };
    /** Rows inserted a batch at a time. */
    private static final int BATCH = 10_000;
    /**
     * A row of kine's table. The name is bound as bytes and stored as text ({@code CAST(? AS BLOB)} would keep it a
     * blob, which kine's text comparisons never match; {@code CAST(? AS TEXT)} keeps every byte, UTF-8 or not).
     */
    private static final String INSERT = "INSERT OR IGNORE INTO kine(id, name, created, deleted, create_revision, prev_revision, lease, value, old_value)"
            + " VALUES (?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, NULL)";

    /** A live key as kine stores it: its value, its revisions, its lease as a TTL in seconds (0: none). */
    public record Row(byte[] key, byte[] value, long createRevision, long modRevision, long ttl) {
    }

    /** What was written: the key rows, kine's revision (its greatest id), and what the report should say (keys moved). */
    public record Written(long rows, long revision, List<String> notes) {
    }

    private KineOutput() {
    }

    /** Sets {@code c}'s journal and sync modes for a file written once, and creates kine's schema. */
    private static void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = DELETE");
            s.execute("PRAGMA synchronous = FULL");
            for (String ddl : SCHEMA) s.execute(ddl);
        }
    }

    /**
     * Writes {@code rows} (live keys, any order) and kine's own rows through {@code c} (autocommit off; the caller
     * commits), the live set's revision being {@code revision}.
     */
    private static Written write(Connection c, Iterator<Row> rows, long revision) throws SQLException {
        long n = 0;
        List<String> notes = new ArrayList<>();
        List<Row> shared = new ArrayList<>();
        try (PreparedStatement ins = c.prepareStatement(INSERT)) {
            List<Row> batch = new ArrayList<>(BATCH);
            while (rows.hasNext()) {
                Row k = rows.next();
                bind(ins, k, k.modRevision());
                ins.addBatch();
                batch.add(k);
                n++;
                if (batch.size() == BATCH) flush(ins, batch, shared);
            }
            flush(ins, batch, shared);
            // Keys whose mod revision another key's row holds: after the source's last revision, in key order.
            long next = Math.max(revision, maxId(c)) + 1;
            long firstMoved = next;
            shared.sort((a, b) -> java.util.Arrays.compareUnsigned(a.key(), b.key()));
            for (Row k : shared) {
                bind(ins, k, next++);
                if (ins.executeUpdate() != 1) throw new SQLException("row " + (next - 1) + " not written");
            }
            if (!shared.isEmpty()) {
                notes.add(String.format("%,d key(s) shared a revision with another key (kine has one row a revision): written at revisions %d..%d",
                        shared.size(), firstMoved, next - 1));
            }
        }
        long last = Math.max(revision, maxId(c));
        try (PreparedStatement own = c.prepareStatement(INSERT)) {
            // kine's own rows: compact_rev_key (its prev_revision the compact revision), and the source's revision.
            own(own, freeId(c), "compact_rev_key", 1, 0, last);
            if (maxId(c) < last) own(own, last, "gap-" + last, 0, 1, 0);
        }
        return new Written(n, maxId(c), notes);
    }

    /** {@code k}'s row at revision {@code id}: a create when it was created there, else an update keeping its create_revision. */
    private static void bind(PreparedStatement ins, Row k, long id) throws SQLException {
        boolean created = k.createRevision() == id || k.createRevision() <= 0;
        ins.setLong(1, id);
        ins.setBytes(2, k.key());
        ins.setInt(3, created ? 1 : 0);
        ins.setInt(4, 0);
        ins.setLong(5, created ? 0 : k.createRevision());
        ins.setLong(6, created ? 0 : k.createRevision());
        ins.setLong(7, Math.max(0, k.ttl()));
        ins.setBytes(8, k.value());
    }

    /** Runs the batch; the keys whose id was taken already (INSERT OR IGNORE wrote nothing) go to {@code shared}. */
    private static void flush(PreparedStatement ins, List<Row> batch, List<Row> shared) throws SQLException {
        if (batch.isEmpty()) return;
        int[] counts = ins.executeBatch();
        for (int i = 0; i < counts.length; i++) if (counts[i] == 0) shared.add(batch.get(i));
        batch.clear();
    }

    private static void own(PreparedStatement ins, long id, String name, int created, int deleted, long prevRevision) throws SQLException {
        ins.setLong(1, id);
        ins.setBytes(2, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ins.setInt(3, created);
        ins.setInt(4, deleted);
        ins.setLong(5, 0);
        ins.setLong(6, prevRevision);
        ins.setLong(7, 0);
        ins.setBytes(8, created == 1 ? new byte[0] : null);
        if (ins.executeUpdate() != 1) throw new SQLException(name + " not written at id " + id);
    }

    /**
     * The digest of a live set as kine keeps it: each live key and its value (kine keeps no version, and a key that
     * shared its revision is written at another: what a kine db is compared on after it is written).
     */
    public static String liveDigest(java.util.List<dev.walkit.format.pass.Pass.LiveKey> live, dev.walkit.format.replay.StateDigest.Source values) {
        dev.walkit.format.replay.StateDigest.Builder b = new dev.walkit.format.replay.StateDigest.Builder();
        for (dev.walkit.format.pass.Pass.LiveKey k : live) b.add(k.key(), 0, 0, 0, 0, k.valueOffset(), k.valueLength());
        return b.digest(0, values);
    }

    /**
     * The live-set digest ({@link #liveDigest}) of the kine db at {@code db}, read as every tool reads one (the pass's
     * form, replayed); fails, naming it, when the db does not read back clean: a written db is published only so.
     */
    public static String readBack(java.nio.file.Path db) throws java.io.IOException {
        try (dev.walkit.format.pass.Pass.Form form = dev.walkit.format.pass.Pass.form(db)) {
            if (!form.store().damage().isEmpty()) {
                throw new java.io.IOException("the kine db did not read back clean (nothing was published): " + form.store().damage().get(0));
            }
            try (dev.walkit.format.pass.Pass.Replayed s = dev.walkit.format.pass.Pass.replay(form.wal(), null)) {
                if (!s.replay().damage().isEmpty()) {
                    throw new java.io.IOException("the kine db did not read back clean (nothing was published): " + s.report().account().damage().get(0).span());
                }
                return liveDigest(s.replay().live(), s.file()::readFully);
            }
        }
    }

    /**
     * kine's database being written to {@code temp} (a temp file the caller fsyncs and publishes, {@link OutputDir}):
     * kine's schema created, then one SQLite transaction open: the live set ({@link #write}), then, for a follow, a row
     * for each change as kine writes it ({@link #append}). The one connection a tool writes kine's format through.
     */
    public static final class Writer implements AutoCloseable {
        private static final String LAST = "SELECT id, created, create_revision, deleted, lease, value FROM kine WHERE name = CAST(? AS TEXT) "
                + "ORDER BY id DESC LIMIT 1";
        private static final String ROW = "INSERT INTO kine(id, name, created, deleted, create_revision, prev_revision, lease, value, old_value)"
                + " VALUES (?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?)";
        private final java.nio.file.Path temp;
        private final Connection c;

        private Writer(java.nio.file.Path temp, Connection c) {
            this.temp = temp;
            this.c = c;
        }

        /** Creates kine's database at {@code temp} (its schema; rollback journal, synchronous FULL), a transaction open. */
        public static Writer create(java.nio.file.Path temp) throws java.io.IOException {
            Connection c = null;
            try {
                c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + temp);
                KineOutput.create(c);
                c.setAutoCommit(false);
                return new Writer(temp, c);
            } catch (SQLException e) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // the temp file is the caller's to discard
                    }
                }
                throw new java.io.IOException(temp + ": the kine database could not be written: " + e.getMessage(), e);
            }
        }

        private java.io.IOException failed(SQLException e) {
            return new java.io.IOException(temp + ": the kine database could not be written: " + e.getMessage(), e);
        }

        /** {@link KineOutput#write} of {@code rows}, the live set of {@code revision}. */
        public Written write(Iterator<Row> rows, long revision) throws java.io.IOException {
            try {
                return KineOutput.write(c, rows, revision);
            } catch (SQLException e) {
                throw failed(e);
            }
        }

        /**
         * A change as kine writes it, at the next id (kine has one row a revision): a put of a key not live is a create
         * ({@code created = 1}); of a live key, an update (its create_revision, prev_revision the key's row before, the
         * value before in {@code old_value}); a delete of a live key keeps its last value and lease ({@code deleted = 1});
         * a delete of a key not live writes nothing. {@code ttl}: the put's lease as a TTL in seconds (0: none). Returns
         * the change in live keys: 1, -1 or 0.
         */
        public int append(byte[] key, boolean delete, byte[] value, long ttl) throws java.io.IOException {
            try (PreparedStatement last = c.prepareStatement(LAST); PreparedStatement row = c.prepareStatement(ROW)) {
                last.setBytes(1, key);
                long prevId = 0;
                long create = 0;
                boolean live = false;
                long lease = 0;
                byte[] before = null;
                try (java.sql.ResultSet r = last.executeQuery()) {
                    if (r.next()) {
                        prevId = r.getLong(1);
                        create = r.getLong(2) != 0 ? prevId : r.getLong(3);
                        live = r.getLong(4) == 0;
                        lease = r.getLong(5);
                        before = r.getBytes(6);
                    }
                }
                if (delete && !live) return 0;
                long id = maxId(c) + 1;
                row.setLong(1, id);
                row.setBytes(2, key);
                if (delete) {
                    row.setInt(3, 0);
                    row.setInt(4, 1);
                    row.setLong(5, create);
                    row.setLong(6, prevId);
                    row.setLong(7, lease);
                    row.setBytes(8, before);
                    row.setBytes(9, before);
                } else {
                    row.setInt(3, live ? 0 : 1);
                    row.setInt(4, 0);
                    row.setLong(5, live ? create : 0);
                    row.setLong(6, prevId);
                    row.setLong(7, Math.max(0, ttl));
                    row.setBytes(8, value);
                    row.setBytes(9, live ? before : null);
                }
                if (row.executeUpdate() != 1) throw new SQLException("row " + id + " not written");
                return delete ? -1 : live ? 0 : 1;
            } catch (SQLException e) {
                throw failed(e);
            }
        }

        /** Commits what was written so far (the transaction goes on). */
        public void commit() throws java.io.IOException {
            try {
                c.commit();
            } catch (SQLException e) {
                throw failed(e);
            }
        }

        /** Commits, closes the connection and removes the rollback journal: kine's revision (its greatest id). */
        public long finish() throws java.io.IOException {
            long revision;
            try {
                c.commit();
                revision = maxId(c);
                c.close();
            } catch (SQLException e) {
                throw failed(e);
            }
            java.nio.file.Files.deleteIfExists(temp.resolveSibling(temp.getFileName() + "-journal"));
            return revision;
        }

        /** Closes the connection (what was not committed is lost with the temp file). */
        @Override
        public void close() {
            try {
                c.close();
            } catch (SQLException e) {
                // the temp file is discarded with its directory's lock
            }
        }
    }

    /** kine's revision: its greatest id (0 for none). */
    private static long maxId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet r = s.executeQuery("SELECT COALESCE(MAX(id), 0) FROM kine")) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    /** The first id no row holds (1 unless a key's row is there). */
    private static long freeId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet r = s.executeQuery(
                "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM kine WHERE id = 1) THEN 1"
                        + " ELSE (SELECT MIN(a.id) + 1 FROM kine a WHERE NOT EXISTS (SELECT 1 FROM kine b WHERE b.id = a.id + 1)) END")) {
            return r.next() ? r.getLong(1) : 1;
        }
    }
}
