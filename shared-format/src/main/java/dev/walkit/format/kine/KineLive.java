package dev.walkit.format.kine;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Properties;

/**
 * kine's database read as kine serves it (kine's facts, from its source), over one SQLite connection: a private
 * {@link KineDb}'s, or a live database's read-only one ({@link #follow}). The live set: the row with the greatest
 * {@code id} per {@code name} is the key's latest, live when {@code deleted = 0}; names are read as bytes ({@code CAST(name
 * AS BLOB)}: before v0.16.3 kine declared {@code name INTEGER}); kine's own rows ({@link KineDb#internal}) are not
 * data; {@code lease} is a TTL in seconds. The rows after an id, in id order, as kine's watch reads them; its revision
 * (the greatest id) and its compact revision.
 */
public final class KineLive implements AutoCloseable {
    /**
     * One pass: the greatest id per name (as bytes), joined back by primary key. CROSS JOIN keeps the grouped scan the
     * outer loop, which SQLite then runs as a co-routine: rows stream from the first group on, instead of after the
     * whole grouping is materialised.
     */
    public static final String LIVE_SET = """
            SELECT CAST(k.name AS BLOB) AS kname, k.value, k.lease, k.create_revision, k.id
            FROM (SELECT MAX(id) AS maxid FROM kine GROUP BY name) m
            CROSS JOIN kine k ON k.id = m.maxid
            WHERE k.deleted = 0
            """;
    /** Grouping by {@code name} walks kine's (name, id) index; key order costs a sort, asked for only when needed. */
    static final String ORDERED = " ORDER BY kname";
    private static final String AFTER = "SELECT id, CAST(name AS BLOB), created, deleted, lease, value, old_value FROM kine WHERE id > ? ORDER BY id LIMIT ?";

    /** What a read that met a page SQLite calls malformed says after the path. */
    public static final String DAMAGED = ": the kine db is damaged (SQLite: the database disk image is malformed): run waldoctor diagnose first";

    private final Path source;
    private final Connection c;
    private final boolean owns;
    private PreparedStatement after;

    private KineLive(Path source, Connection c, boolean owns) {
        this.source = source;
        this.c = c;
        this.owns = owns;
    }

    /** Over {@code db}'s connection (which {@code db} closes). */
    static KineLive of(KineDb db) {
        return new KineLive(db.source(), db.connection(), false);
    }

    /**
     * The live database {@code stateDb} opened to be followed while kine writes it: read-only ({@code SQLITE_OPEN_READONLY}:
     * it reads the committed frames of kine's {@code -wal} through its {@code -shm} as any reader does, never
     * checkpoints, never writes the database or its {@code -wal}), waiting up to 10 s on kine's brief locks.
     */
    public static KineLive follow(Path stateDb) throws IOException {
        Properties p = new Properties();
        p.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: no checkpoint, no write, ever
        p.setProperty("busy_timeout", "10000"); // kine's checkpoints and restarts hold locks briefly
        try {
            return new KineLive(stateDb, DriverManager.getConnection("jdbc:sqlite:" + stateDb.toAbsolutePath(), p), true);
        } catch (SQLException e) {
            throw new IOException(stateDb + ": cannot read kine's database to follow it: " + e.getMessage(), e);
        }
    }

    /** SQLITE_CORRUPT: a page of the database is not what its b-tree says. */
    public static boolean damaged(SQLException e) {
        return (e.getErrorCode() & 0xff) == 11;
    }

    private IOException failed(String what, SQLException e) {
        return new IOException(source + (damaged(e) ? DAMAGED : ": " + what + ": " + e.getMessage()), e);
    }

    /** Throws, in SQLite's words, when the database has no table kine can read ("no such table: kine"). */
    public void requireTable() throws IOException {
        try (PreparedStatement s = c.prepareStatement("SELECT COALESCE(MAX(id), 0) FROM kine"); ResultSet r = s.executeQuery()) {
            r.next();
        } catch (SQLException e) {
            throw new IOException(source + (damaged(e) ? DAMAGED : ": not a kine database: " + e.getMessage()), e);
        }
    }

    /** kine's revision: its greatest row id (kine's own rows count), 0 when it has none. */
    public long head() throws IOException {
        return number("SELECT COALESCE(MAX(id), 0) FROM kine", "reading kine's revision failed");
    }

    /** The revision kine's compaction reached ({@link #compactRevision(Connection)}), 0 when none. */
    public long compactRevision() throws IOException {
        try {
            return compactRevision(c);
        } catch (SQLException e) {
            throw failed("reading kine's compact revision failed", e);
        }
    }

    /**
     * The compact revision kine recorded on {@code c}'s database (0: none): compact_rev_key's latest row's prev_revision,
     * found by kine's name index (the name as text, as kine writes it, or as a blob; a CAST of the column would read
     * every row). The one reading of it: the WAL form's snapshot prefix and a follow's check that kine has not
     * compacted past what it read.
     */
    static long compactRevision(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT prev_revision FROM kine WHERE name IN ('compact_rev_key', CAST('compact_rev_key' AS BLOB))"
                + " ORDER BY id DESC LIMIT 1"); ResultSet r = s.executeQuery()) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    private long number(String sql, String what) throws IOException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            return r.next() ? r.getLong(1) : 0;
        } catch (SQLException e) {
            throw failed(what, e);
        }
    }

    /** A live key: its name, value, the revision it was created at and its latest, and its lease's TTL (0: none). */
    public record Key(byte[] key, byte[] value, long createRevision, long modRevision, long leaseTtl) {
    }

    /** The live set at {@code revision} (rows with an id up to it; -1: all of them), in key order when {@code ordered}. */
    public LiveSet liveSet(long revision, boolean ordered) throws IOException {
        try {
            long at = revision >= 0 ? revision : head();
            PreparedStatement st = c.prepareStatement((revision >= 0 ? LIVE_SET.replace("FROM kine GROUP BY name", "FROM kine WHERE id <= ? GROUP BY name")
                    : LIVE_SET) + (ordered ? ORDERED : ""));
            try {
                if (revision >= 0) st.setLong(1, revision);
                return new LiveSet(at, st, st.executeQuery());
            } catch (SQLException e) {
                st.close();
                throw e;
            }
        } catch (SQLException e) {
            throw failed("reading kine's rows failed", e);
        }
    }

    /** The live set as it is read; kine keeps no version. */
    public final class LiveSet implements Iterator<Key>, AutoCloseable {
        private final long revision;
        private final PreparedStatement st;
        private final ResultSet rows;
        private Key next;

        private LiveSet(long revision, PreparedStatement st, ResultSet rows) throws SQLException {
            this.revision = revision;
            this.st = st;
            this.rows = rows;
            advance();
        }

        /** The revision the set is of. */
        public long revision() {
            return revision;
        }

        private void advance() throws SQLException {
            next = null;
            while (rows.next()) {
                byte[] name = rows.getBytes(1);
                if (name == null || KineDb.internal(name)) continue;
                byte[] value = rows.getBytes(2);
                long id = rows.getLong(5);
                long create = rows.getLong(4);
                next = new Key(name, value == null ? new byte[0] : value, create == 0 ? id : create, id, rows.getLong(3));
                return;
            }
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Key next() {
            if (next == null) throw new NoSuchElementException();
            Key k = next;
            try {
                advance();
            } catch (SQLException e) {
                throw new IllegalStateException(source + (damaged(e) ? DAMAGED : ": read failed: " + e.getMessage()), e);
            }
            return k;
        }

        @Override
        public void close() throws IOException {
            try {
                rows.close();
                st.close();
            } catch (SQLException e) {
                throw new IOException(source + ": close failed: " + e.getMessage(), e);
            }
        }
    }

    /**
     * A row as kine's watch reads it: its id (the revision), name, whether it created or deleted the key, the lease's
     * TTL, the value and the value before ({@code old_value}; a delete row keeps the last value in both).
     */
    public record Row(long id, byte[] name, boolean created, boolean deleted, long leaseTtl, byte[] value, byte[] oldValue) {
        /** Whether it is kine's own (compaction, gap filler): it moves the revision and changes no key. */
        public boolean internal() {
            return name == null || KineDb.internal(name);
        }
    }

    /** Up to {@code limit} rows with an id above {@code id}, in id order. */
    public List<Row> rowsAfter(long id, int limit) throws IOException {
        List<Row> out = new ArrayList<>();
        try {
            if (after == null) after = c.prepareStatement(AFTER);
            after.setLong(1, id);
            after.setInt(2, limit);
            try (ResultSet r = after.executeQuery()) {
                while (r.next()) {
                    out.add(new Row(r.getLong(1), r.getBytes(2), r.getLong(3) != 0, r.getLong(4) != 0, r.getLong(5), r.getBytes(6), r.getBytes(7)));
                }
            }
        } catch (SQLException e) {
            throw failed("reading kine's new rows failed", e);
        }
        return out;
    }

    /** Closes the live connection ({@link #follow}); a private db's is its own to close. */
    @Override
    public void close() {
        try {
            if (after != null) after.close();
        } catch (SQLException e) {
            // closed with the connection
        }
        if (!owns) return;
        try {
            c.close();
        } catch (SQLException e) {
            // read-only: nothing to lose
        }
    }
}
