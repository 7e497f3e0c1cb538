package dev.walkit.format.replay;

import dev.walkit.format.LogItem;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.WalEntry;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Transaction} view of plain records {@code [from, to)} of a {@link RecordBatch} that replay applied
 * as they are ({@link Replayer#applyPlain}): valid while its listener is called; one is reused for every such
 * transaction. Its entries are made on demand.
 */
final class BatchTransaction implements Transaction {
    private RecordBatch b;
    private int from;
    private int to;

    BatchTransaction set(RecordBatch b, int from, int to) {
        this.b = b;
        this.from = from;
        this.to = to;
        return this;
    }

    @Override
    public long revision() {
        return b.revision[from];
    }

    @Override
    public long offset() {
        return b.offset[from];
    }

    @Override
    public long end() {
        return b.offset[to - 1] + b.length[to - 1];
    }

    @Override
    public int records() {
        return to - from;
    }

    @Override
    public boolean isSnapshot() {
        return false;
    }

    @Override
    public boolean plain() {
        return true;
    }

    @Override
    public List<WalEntry> entries() {
        List<WalEntry> l = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            LogItem it = b.item(i);
            l.add((WalEntry) it);
        }
        return l;
    }
}
