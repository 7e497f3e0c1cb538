package dev.walkit.migrate;

import dev.walkit.format.kine.KineDb;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.NoSuchElementException;

/**
 * The live set of kine's SQLite {@code state.db}, streamed in key order (kine's facts, from its source):
 * the row with the greatest {@code id} per {@code name} is the key's latest, live when its
 * {@code deleted = 0}; names are read as bytes ({@code CAST(name AS BLOB)}: before v0.16.3 kine
 * declared {@code name INTEGER}); {@code compact_rev_key}, {@code compact_rev_key_apiserver} and
 * {@code gap-*} rows are kine's own, not data; {@code lease} is a TTL in seconds.
 *
 * <p>kine runs SQLite in WAL journal mode, so committed rows may live only in {@code state.db-wal}:
 * the source files (db, -wal, -shm) are copied to a private temp directory and only the copy is
 * opened. The source files are never written.
 */
public final class KineSource implements KeySource {
    /**
     * One pass: the greatest id per name (as bytes), joined back by primary key. kine keeps no
     * version; a migrated key gets the target's own, and an offline WAL gets version 1. CROSS JOIN
     * keeps the grouped scan the outer loop, which SQLite then runs as a co-routine: rows stream from
     * the first group on, instead of after the whole grouping is materialised.
     */
    static final String LIVE_SET = """
            SELECT CAST(k.name AS BLOB) AS kname, k.value, k.lease, k.create_revision, k.id
            FROM (SELECT MAX(id) AS maxid FROM kine GROUP BY name) m
            CROSS JOIN kine k ON k.id = m.maxid
            WHERE k.deleted = 0
            """;
    /** Grouping by {@code name} walks kine's (name, id) index; key order costs a sort, so only verify asks for it. */
    static final String ORDERED = " ORDER BY kname";

    /** The private copy this reads, closed with it; null when the connection is a follow's (which closes it). */
    private final KineDb kine;
    private final Connection db;
    private final PreparedStatement st;
    private final ResultSet rows;
    private final String describe;
    private final long revision;
    private SourceKey next;

    private KineSource(Path source, KineDb kine, boolean ordered) throws SQLException {
        this(source, kine, kine.connection(), ordered, -1);
    }

    /** The live set at {@code atRevision} (rows with id up to it; -1: all) on {@code db}. */
    private KineSource(Path source, KineDb kine, Connection db, boolean ordered, long atRevision) throws SQLException {
        this.kine = kine;
        this.db = db;
        this.describe = "kine " + source;
        if (atRevision >= 0) {
            this.revision = atRevision;
            this.st = db.prepareStatement(LIVE_SET.replace("FROM kine GROUP BY name", "FROM kine WHERE id <= ? GROUP BY name") + (ordered ? ORDERED : ""));
            st.setLong(1, atRevision);
        } else {
            try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT COALESCE(MAX(id), 0) FROM kine")) {
                this.revision = r.next() ? r.getLong(1) : 0;
            }
            this.st = db.prepareStatement(ordered ? LIVE_SET + ORDERED : LIVE_SET);
        }
        this.rows = st.executeQuery();
        advance();
    }

    /**
     * The live set as it stood at {@code revision}, in key order, read on a follow's connection to the live database
     * (which stays open when this closes): rows up to a revision are never changed, only removed by kine's compaction,
     * which the follow checks it has not passed.
     */
    static KineSource at(Path source, Connection live, long revision) throws IOException {
        try {
            return new KineSource(source, null, live, true, revision);
        } catch (SQLException e) {
            throw new IOException(source + (damaged(e) ? DAMAGED : ": reading kine's rows failed: " + e.getMessage()), e);
        }
    }

    /** Copies {@code stateDb} (and its -wal and -shm) privately and opens the copy; keys in byte order. */
    public static KineSource open(Path stateDb) throws IOException {
        return open(stateDb, true);
    }

    /** As {@link #open(Path)}; {@code ordered = false} streams the keys in kine's order (faster, for migration). */
    public static KineSource open(Path stateDb, boolean ordered) throws IOException {
        return open(stateDb, ordered, true);
    }

    /** As above; {@code check}: refuse a damaged db here (false: walmigrate's gate has judged it, {@link SourceGate#store}). */
    static KineSource open(Path stateDb, boolean ordered, boolean check) throws IOException {
        KineDb kine = KineDb.open(stateDb, "walmigrate");
        try {
            if (check) SourceGate.store(stateDb, null); // the pass's verdict, as every source is judged
            return new KineSource(stateDb, kine, ordered);
        } catch (SQLException e) {
            kine.close();
            throw new IOException(stateDb + (damaged(e) ? DAMAGED : ": not a kine database: " + e.getMessage()), e);
        } catch (RuntimeException e) {
            kine.close();
            throw e;
        }
    }


    /** As a damaged etcd db or WAL is refused: nothing is migrated from a table SQLite cannot read whole. */
    static final String DAMAGED = ": the kine db is damaged (SQLite: the database disk image is malformed): run waldoctor diagnose first";

    /** SQLITE_CORRUPT: a page of the database is not what its b-tree says. */
    static boolean damaged(SQLException e) {
        return (e.getErrorCode() & 0xff) == 11;
    }

    /** kine's own rows: not data. */
    static boolean internal(byte[] name) {
        return KineDb.internal(name);
    }

    private void advance() throws SQLException {
        next = null;
        while (rows.next()) {
            byte[] name = rows.getBytes(1);
            if (name == null || internal(name)) continue;
            byte[] value = rows.getBytes(2);
            long id = rows.getLong(5);
            long create = rows.getLong(4);
            next = new SourceKey(name, value == null ? new byte[0] : value, create == 0 ? id : create, id, 1, rows.getLong(3));
            return;
        }
    }

    @Override
    public boolean hasNext() {
        return next != null;
    }

    @Override
    public SourceKey next() {
        if (next == null) throw new NoSuchElementException();
        SourceKey k = next;
        try {
            advance();
        } catch (SQLException e) {
            throw new IllegalStateException(describe + (damaged(e) ? DAMAGED : ": read failed: " + e.getMessage()), e);
        }
        return k;
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public long revision() {
        return revision;
    }

    @Override
    public boolean leaseIsTtl() {
        return true;
    }

    @Override
    public void close() throws IOException {
        try {
            rows.close();
            st.close();
        } catch (SQLException e) {
            throw new IOException(describe + ": close failed: " + e.getMessage(), e);
        } finally {
            if (kine != null) kine.close();
        }
    }
}
