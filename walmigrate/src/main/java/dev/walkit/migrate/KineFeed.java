package dev.walkit.migrate;

import dev.walkit.format.kine.KineDb;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * kine's rows followed as kine's own watch follows them: the rows with an id above the last one seen, in id order,
 * each row one transaction (kine writes one row per revision). A create ({@code created = 1}) had no value before; an
 * update or a delete had its row's {@code old_value} (a delete row keeps the last value). kine's own rows (its
 * compaction's, its gap fillers) move the revision and change no key.
 *
 * <p>Read from a private, read-only SQLite connection to the live database ({@code SQLITE_OPEN_READONLY}): it reads
 * the committed frames of kine's {@code -wal} through its {@code -shm} as any reader does, never checkpoints (a
 * read-only connection cannot), and never writes the database or its {@code -wal}. Before any of it, the database is
 * checked for damage on a private copy, as every tool refuses a damaged source.
 *
 * <p>kine's compaction (every 5 minutes, never its last 1000 revisions) removes rows for good: the follow checks, at
 * every poll, that kine has not compacted past the revision it has read, or it could have missed a delete.
 */
final class KineFeed implements ChangeFeed {
    /** Rows per poll's query. */
    private static final int ROWS = 1000;
    private static final String AFTER = "SELECT id, CAST(name AS BLOB), created, deleted, lease, value, old_value FROM kine WHERE id > ? ORDER BY id LIMIT " + ROWS;

    private final Path stateDb;
    private final Connection live;
    private final PreparedStatement after;
    private long last = -1;
    private long head;

    private KineFeed(Path stateDb, Connection live) throws SQLException {
        this.stateDb = stateDb;
        this.live = live;
        this.after = live.prepareStatement(AFTER);
    }

    /** Judges {@code stateDb} by the pass (on a private copy: a damaged database is refused, exit 3), then opens it read-only to follow. */
    static KineFeed open(Path stateDb) throws IOException {
        SourceGate.store(stateDb, null);
        Properties p = new Properties();
        p.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: no checkpoint, no write, ever
        p.setProperty("busy_timeout", "10000"); // kine's checkpoints and restarts hold locks briefly
        Connection c = null;
        try {
            c = DriverManager.getConnection("jdbc:sqlite:" + stateDb.toAbsolutePath(), p);
            return new KineFeed(stateDb, c);
        } catch (SQLException e) {
            close(c);
            throw new IOException(stateDb + ": cannot read kine's database to follow it: " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "kine " + stateDb + " (followed)";
    }

    @Override
    public long position(long revision, long notAfter) throws IOException {
        long newest = headNow();
        if (revision == LATEST) revision = Math.min(newest, notAfter);
        if (revision > newest) {
            throw ChangeFeed.ahead(stateDb.toString(), revision, newest);
        }
        requireUncompacted(revision);
        last = revision;
        head = newest;
        return revision;
    }

    /** kine's compaction must not have passed {@code revision}: its rows below it would be gone. */
    private void requireUncompacted(long revision) throws IOException {
        long compact = query("SELECT COALESCE((SELECT prev_revision FROM kine WHERE name = 'compact_rev_key' ORDER BY id LIMIT 1), 0)");
        if (compact > revision) {
            throw new IOException(stateDb + ": kine compacted its rows to revision " + compact + ", past revision " + revision
                    + " that this migration had reached: what changed in between cannot be read; migrate again into an empty target");
        }
    }

    @Override
    public KeySource state(long revision) throws IOException {
        KeySource s = KineSource.at(stateDb, live, revision);
        try {
            requireUncompacted(revision); // still whole once read
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    @Override
    public List<SourceTxn> poll(long waitMillis, long upTo) throws IOException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        for (;;) {
            List<SourceTxn> out = read(upTo);
            if (!out.isEmpty() || System.nanoTime() >= deadline) return out;
            sleep(Math.min(50, Math.max(1, (deadline - System.nanoTime()) / 1_000_000L)));
        }
    }

    private List<SourceTxn> read(long upTo) throws IOException {
        List<SourceTxn> out = new ArrayList<>();
        long now = System.nanoTime();
        long from = last;
        try {
            after.setLong(1, last);
            try (ResultSet r = after.executeQuery()) {
                while (r.next()) {
                    long id = r.getLong(1);
                    if (id > upTo) break;
                    byte[] name = r.getBytes(2);
                    last = id;
                    head = Math.max(head, id);
                    if (name == null || KineDb.internal(name)) continue;
                    boolean created = r.getLong(3) != 0;
                    boolean deleted = r.getLong(4) != 0;
                    byte[] value = bytes(r.getBytes(6));
                    byte[] old = deleted ? bytes(r.getBytes(7) != null ? r.getBytes(7) : r.getBytes(6)) : created ? null : bytes(r.getBytes(7));
                    out.add(new SourceTxn(id, List.of(new Change(name, deleted ? null : value, old, true, deleted ? 0 : r.getLong(5))), now));
                }
            }
        } catch (SQLException e) {
            throw new IOException(stateDb + (KineSource.damaged(e) ? KineSource.DAMAGED : ": reading kine's new rows failed: " + e.getMessage()), e);
        }
        if (last > from) requireUncompacted(from); // no row between was compacted away before it was read
        return out;
    }

    private static byte[] bytes(byte[] b) {
        return b == null ? new byte[0] : b;
    }

    @Override
    public long head() {
        return head;
    }

    @Override
    public long headNow() throws IOException {
        long h = query("SELECT COALESCE(MAX(id), 0) FROM kine");
        head = Math.max(head, h);
        return h;
    }

    private long query(String sql) throws IOException {
        try (PreparedStatement s = live.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            return r.next() ? r.getLong(1) : 0;
        } catch (SQLException e) {
            throw new IOException(stateDb + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean leaseIsTtl() {
        return true;
    }

    @Override
    public void close() throws IOException {
        try {
            after.close();
        } catch (SQLException e) {
            // closed with the connection
        }
        close(live);
    }

    private static void close(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException e) {
            // read-only: nothing to lose
        }
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
