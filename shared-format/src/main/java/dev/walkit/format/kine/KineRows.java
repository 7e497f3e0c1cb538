package dev.walkit.format.kine;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    private boolean ended;

    private KineRows(KineDb db, String query, boolean values) {
        this.db = db;
        for (int i = 0; i < BATCHES; i++) free.add(new Batch());
        reader = new Thread(() -> read(query, values), "kine-rows");
        reader.setDaemon(true);
    }

    /**
     * Starts reading {@code query}: id, name, {@link #FLAGS} (with {@code values} false, the value's length above
     * them, from bit 2), create_revision, lease, and with {@code values} the value.
     */
    static KineRows start(KineDb db, String query, boolean values) {
        KineRows rows = new KineRows(db, query, values);
        rows.reader.start();
        return rows;
    }

    private void read(String query, boolean values) {
        try (Statement s = db.connection().createStatement(); ResultSet r = s.executeQuery(query)) {
            Batch b = free.take();
            b.size = 0;
            while (!stopped && r.next()) {
                int i = b.size++;
                b.id[i] = r.getLong(1);
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
                if (b.size == Batch.ROWS) {
                    full.put(b);
                    b = free.take();
                    b.size = 0;
                }
            }
            if (b.size > 0) full.put(b);
        } catch (SQLException e) {
            failed = e;
        } catch (InterruptedException e) {
            return; // closed: nobody takes what follows
        }
        try {
            full.put(END);
        } catch (InterruptedException e) {
            // closed
        }
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
