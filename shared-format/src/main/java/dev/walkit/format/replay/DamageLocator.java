package dev.walkit.format.replay;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.LogItem;
import dev.walkit.format.WalEntry;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Attaches to each damaged span the revisions of the valid records on either side of it, as the
 * reader's items stream by (a tap of {@link Replay#run}); also counts records and revisions.
 */
public final class DamageLocator implements Consumer<LogItem> {
    /** A damaged span with the revisions of the valid records before and after it (-1: none). */
    public record Located(DamageSpan span, long revisionBefore, long revisionAfter) {
    }

    private final Consumer<Located> sink;
    private final List<DamageSpan> waiting = new ArrayList<>();
    private long last = -1;
    private long records;
    private long firstRevision = -1;
    private long lastRevision = -1;

    public DamageLocator(Consumer<Located> sink) {
        this.sink = sink;
    }

    @Override
    public void accept(LogItem it) {
        if (it instanceof WalEntry e) record(e.revision());
        else waiting.add((DamageSpan) it);
    }

    /** A valid record of this revision was read. */
    public void record(long revision) {
        records++;
        if (firstRevision < 0) firstRevision = revision;
        if (revision > lastRevision) lastRevision = revision;
        flush(revision);
        last = revision;
    }

    /**
     * {@code count} valid records read one after another (no damage between them), as one call: the
     * first of revision {@code firstRevision}, the last of {@code lastRevision}, the greatest {@code maxRevision}.
     */
    public void records(long count, long firstRevision, long lastRevision, long maxRevision) {
        if (count <= 0) return;
        record(firstRevision);
        records += count - 1;
        if (maxRevision > this.lastRevision) this.lastRevision = maxRevision;
        last = lastRevision;
    }

    /** A damaged span was read. */
    public void damage(DamageSpan d) {
        waiting.add(d);
    }

    /** The end of the log: spans still waiting have no record after them. */
    public void end() {
        flush(-1);
    }

    private void flush(long after) {
        for (DamageSpan d : waiting) sink.accept(new Located(d, last, after));
        waiting.clear();
    }

    public long records() {
        return records;
    }

    public long firstRevision() {
        return firstRevision;
    }

    public long lastRevision() {
        return lastRevision;
    }
}
