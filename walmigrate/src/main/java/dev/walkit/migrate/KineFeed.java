package dev.walkit.migrate;

import dev.walkit.format.kine.KineLive;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * kine's rows followed as kine's own watch follows them: the rows with an id above the last one seen, in id order,
 * each row one transaction (kine writes one row per revision). A create ({@code created = 1}) had no value before; an
 * update or a delete had its row's {@code old_value} (a delete row keeps the last value). kine's own rows (its
 * compaction's, its gap fillers) move the revision and change no key.
 *
 * <p>Read through {@link KineLive#follow}, a read-only SQLite connection to the live database: it reads the committed
 * frames of kine's {@code -wal} through its {@code -shm} as any reader does, never checkpoints, and never writes the
 * database or its {@code -wal}. Before any of it, the database is judged by the pass, as every tool refuses a damaged
 * source.
 *
 * <p>kine's compaction (every 5 minutes, never its last 1000 revisions) removes rows for good: the follow checks, at
 * every poll, that kine has not compacted past the revision it has read, or it could have missed a delete.
 */
final class KineFeed implements ChangeFeed {
    /** Rows per poll's query. */
    private static final int ROWS = 1000;

    private final Path stateDb;
    private final KineLive live;
    private long last = -1;
    private long head;

    private KineFeed(Path stateDb, KineLive live) {
        this.stateDb = stateDb;
        this.live = live;
    }

    /** Judges {@code stateDb} by the pass (a damaged database is refused, exit 3), then opens it read-only to follow. */
    static KineFeed open(Path stateDb) throws IOException {
        SourceGate.store(stateDb, null);
        return new KineFeed(stateDb, KineLive.follow(stateDb));
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
        long compact = live.compactRevision();
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
        for (KineLive.Row r : live.rowsAfter(last, ROWS)) {
            if (r.id() > upTo) break;
            last = r.id();
            head = Math.max(head, r.id());
            if (r.internal()) continue;
            byte[] value = bytes(r.value());
            byte[] old = r.deleted() ? bytes(r.oldValue() != null ? r.oldValue() : r.value()) : r.created() ? null : bytes(r.oldValue());
            out.add(new SourceTxn(r.id(), List.of(new Change(r.name(), r.deleted() ? null : value, old, true, r.deleted() ? 0 : r.leaseTtl())), now));
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
        long h = live.head();
        head = Math.max(head, h);
        return h;
    }

    @Override
    public boolean leaseIsTtl() {
        return true;
    }

    @Override
    public void close() {
        live.close();
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
