package dev.walkit.format.kine;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * kine's rows in id order, read by SQLite on a thread of its own into a few reused batches, while the caller turns
 * the previous batch into records: SQLite's read and the driver's calls (a call a column, each a native call under
 * two locks) take as long as everything done with the rows after, so each runs on a core. At most
 * {@link #BATCHES} batches of {@link Batch#ROWS} rows exist; the caller takes them in order ({@link #next()}) and
 * gives each back ({@link #done}).
 */
final class KineRows implements AutoCloseable {
    static final int BATCHES = 4;
    /** created (bit 0) and deleted (bit 1) as one column; a null is 0. */
    static final String FLAGS = "((ifnull(created, 0) <> 0) | ((ifnull(deleted, 0) <> 0) << 1))";

    /** Up to {@link #ROWS} rows as columns; a value's bytes, or with {@code values} false only its length. */
    static final class Batch {
        static final int ROWS = 2048;
        int size;
        final long[] id = new long[ROWS];
        final byte[][] name = new byte[ROWS][];
        final boolean[] created = new boolean[ROWS];
        final boolean[] deleted = new boolean[ROWS];
        final long[] createRevision = new long[ROWS];
        final long[] lease = new long[ROWS];
        final byte[][] value = new byte[ROWS][];
        final int[] valueLength = new int[ROWS];
    }

    private static final Batch END = new Batch();

    private final KineDb db;
    private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES + 1);
    private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
    private final Thread reader;
    private volatile boolean stopped;
    private volatile SQLException failed;
    /** Written by the reader before its last batch; read after it (the queue orders the two). */
    private final List<Unreadable> unreadable = new ArrayList<>();
    private boolean ended;
    /** How the table's pages were read: null when they gave every row, else why SQLite read (from where). */
    private volatile String pageRead = "not yet";

    private final boolean pagesFirst;

    private KineRows(KineDb db, String query, boolean values, boolean pagesFirst) {
        this.db = db;
        this.pagesFirst = pagesFirst;
        for (int i = 0; i < BATCHES; i++) free.add(new Batch());
        reader = new Thread(() -> read(query, values), "kine-rows");
        reader.setDaemon(true);
    }

    /**
     * Starts reading {@code query} (its one parameter: the id from which to read), a damaged page of the table
     * read past ({@link #unreadable()}): id, name, {@link #FLAGS} (with {@code values} false, the value's length above
     * them, from bit 2), create_revision, lease, and with {@code values} the value.
     */
    static KineRows start(KineDb db, String query, boolean values) {
        return start(db, query, values, true);
    }

    /** {@link #start}; with {@code pagesFirst} false, every row read by SQLite (the pages' reader measured against it). */
    static KineRows start(KineDb db, String query, boolean values, boolean pagesFirst) {
        KineRows rows = new KineRows(db, query, values, pagesFirst);
        rows.reader.start();
        return rows;
    }

    /**
     * Rows SQLite could not read: those after id {@code after} ({@link Long#MIN_VALUE}: from the first) up to id
     * {@code resumedAt}, where reading went on ({@code -1}: to the end), for SQLite's {@code reason}.
     */
    record Unreadable(long after, long resumedAt, String reason) {
        @Override
        public String toString() {
            return "SQLite could not read kine's rows " + (after == Long.MIN_VALUE ? "from the first" : "after id " + after)
                    + (resumedAt < 0 ? " to the end of the table" : " up to id " + resumedAt + ", where the read went on")
                    + " (" + reason + "): a damaged page of the table";
        }
    }

    /** SQLITE_CORRUPT: a page that is not what the b-tree says; the rest of the table may still be read. */
    private static final int SQLITE_CORRUPT = 11;

    private void read(String query, boolean values) {
        Batch b;
        try {
            b = free.take();
            b.size = 0;
            long after = Long.MIN_VALUE; // the last id read
            long from = Long.MIN_VALUE; // where the next read starts
            // From the table's pages first; SQLite reads what they do not give (a row they do not take, damage).
            String[] why = {null};
            KineTable pages = pagesFirst ? KineTable.open(db, why) : null;
            if (!pagesFirst) why[0] = "SQLite asked for";
            boolean whole = false;
            if (pages == null) {
                pageRead = "not used: " + why[0];
            } else {
                try (pages) {
                    while (!stopped && pages.cursor.next()) {
                        int i = b.size;
                        if (!pages.row(b, i, values)) break;
                        after = b.id[i];
                        from = after + 1;
                        b = taken(b);
                    }
                    whole = !stopped && pages.stopped() == null;
                    pageRead = whole ? null : "stopped after id " + after + ": " + pages.stopped();
                } catch (java.io.IOException e) {
                    // closing a read-only file: nothing lost
                } catch (RuntimeException e) {
                    // A fault of the pages' reader on pages it did not foresee: SQLite reads on from the last row whole.
                    whole = false;
                    pageRead = "stopped after id " + after + ": " + e;
                }
            }
            while (!stopped && !whole) {
                try (PreparedStatement s = db.connection().prepareStatement(query)) {
                    // From the next id (id >= after + 1): a seek to the last id read ("id > after") reads its page
                    // again, which may be the damaged one when the read failed at the page after it.
                    s.setLong(1, from);
                    try (ResultSet r = s.executeQuery()) {
                        while (!stopped && r.next()) {
                            int i = b.size;
                            long id = r.getLong(1);
                            b.id[i] = id;
                            b.name[i] = r.getBytes(2);
                            long flags = r.getLong(3);
                            b.created[i] = (flags & 1) != 0;
                            b.deleted[i] = (flags & 2) != 0;
                            b.createRevision[i] = r.getLong(4);
                            b.lease[i] = r.getLong(5);
                            if (values) {
                                byte[] v = r.getBytes(6);
                                b.value[i] = v;
                                b.valueLength[i] = v == null ? 0 : v.length;
                            } else {
                                b.valueLength[i] = (int) (flags >>> 2);
                            }
                            after = id;
                            from = id + 1;
                            b = taken(b); // the row whole: a failure inside it leaves it out
                        }
                    }
                    break;
                } catch (SQLException e) {
                    if ((e.getErrorCode() & 0xff) != SQLITE_CORRUPT) {
                        failed = e;
                        break;
                    }
                    // A damaged page: what it held is lost to this read, the rest is read past it (as the WAL's
                    // reader resyncs past damage).
                    long resume = resumePoint(after);
                    // A read that failed where a seek had found a row that reads: probe on past that row.
                    if (resume >= 0 && resume < from) resume = resumePoint(from);
                    Unreadable u = new Unreadable(after, resume, "SQLITE_CORRUPT: the database disk image is malformed");
                    if (!unreadable.isEmpty() && unreadable.get(unreadable.size() - 1).after() == after) unreadable.set(unreadable.size() - 1, u);
                    else unreadable.add(u);
                    if (resume < 0) break;
                    from = resume;
                }
            }
            if (b.size > 0) full.put(b);
        } catch (InterruptedException e) {
            return; // closed: nobody takes what follows
        } catch (RuntimeException e) {
            // Not a silent end: the caller, waiting on the next batch, gets it as the read's failure.
            failed = new SQLException("reading kine's rows failed: " + e, e);
        }
        try {
            full.put(END);
        } catch (InterruptedException e) {
            // closed
        }
    }

    /** The row at {@code b.size} taken into {@code b}; a full batch handed on and the next (emptied) returned. */
    private Batch taken(Batch b) throws InterruptedException {
        if (++b.size < Batch.ROWS) return b;
        full.put(b);
        Batch next = free.take();
        next.size = 0;
        return next;
    }

    /**
     * The first id past {@code after} from which the table reads again, or -1: seeks by id, the table's b-tree
     * key (a seek into the damaged page fails, one past it lands on a page that reads), doubling the step until
     * one reads, then halving back to the first that does.
     */
    private long resumePoint(long after) {
        long failing = after; // a seek to just past it failed
        long reading = -1;
        long found = -1;
        for (long step = 1; step > 0 && reading < 0; step <<= 1) {
            long at = after + step;
            if (at < after) break; // past the largest id
            long r = firstFrom(at);
            if (r == -2) failing = at;
            else {
                reading = at;
                found = r;
            }
        }
        if (reading < 0) return -1;
        while (reading - failing > 1) {
            long mid = failing + (reading - failing) / 2;
            long r = firstFrom(mid);
            if (r == -2) failing = mid;
            else {
                reading = mid;
                found = r;
            }
        }
        return found;
    }

    /** The first id at or after {@code at} whose row reads (from the table, not an index), -1 for none, -2 when the seek meets damage. */
    private long firstFrom(long at) {
        try (PreparedStatement s = db.connection().prepareStatement("SELECT id, name, value, old_value FROM kine NOT INDEXED WHERE id >= ? ORDER BY id LIMIT 1")) {
            s.setLong(1, at);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) return -1;
                r.getBytes(2);
                r.getBytes(3);
                r.getBytes(4);
                return r.getLong(1);
            }
        } catch (SQLException e) {
            return -2;
        }
    }

    /** null when every row came from the table's pages ({@link KineTable}), else why and from where SQLite read; complete once {@link #next()} has given null. */
    String pageRead() {
        return pageRead;
    }

    /** What could not be read; complete once {@link #next()} has given null. */
    List<Unreadable> unreadable() {
        return unreadable;
    }

    /** The next batch in id order, or null after the last; the query's failure, if it failed. */
    Batch next() throws SQLException, IOException {
        if (ended) return null;
        Batch b;
        try {
            b = full.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(db.source() + ": interrupted while reading kine's rows", e);
        }
        if (b != END) return b;
        ended = true;
        if (failed != null) throw failed;
        return null;
    }

    /** Gives {@code b} back to be filled again (its rows no longer read). */
    void done(Batch b) {
        java.util.Arrays.fill(b.name, 0, b.size, null);
        java.util.Arrays.fill(b.value, 0, b.size, null);
        free.add(b);
    }

    /** Stops the reader (when the caller stops early) and waits for it: the connection is free afterwards. */
    @Override
    public void close() {
        stopped = true;
        reader.interrupt();
        boolean interrupted = false;
        while (reader.isAlive()) {
            try {
                reader.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
