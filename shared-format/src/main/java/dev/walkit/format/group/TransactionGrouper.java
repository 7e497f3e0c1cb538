package dev.walkit.format.group;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.EntrySource;
import dev.walkit.format.Finding;
import dev.walkit.format.LogItem;
import dev.walkit.format.WalEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Groups a stream of {@link LogItem}s into transactions (docs/format.md §5). A transaction whose
 * closing record is missing — the log ends, damage interrupts it, or the next record carries another
 * revision — never committed: it is reported as an {@code incomplete-transaction} and dropped.
 */
public final class TransactionGrouper {
    /** Where grouping hands its results. */
    public interface Sink {
        void transaction(Transaction txn);

        void damage(DamageSpan span);

        void finding(Finding finding);
    }

    private final Sink sink;
    private final List<WalEntry> pending = new ArrayList<>();
    /** Revision of a transaction that damage interrupted: its records after the damage are dropped too. */
    private long interruptedRevision = -1;
    private final List<WalEntry> rest = new ArrayList<>();

    public TransactionGrouper(Sink sink) {
        this.sink = sink;
    }

    public void accept(LogItem item) {
        if (item instanceof DamageSpan d) {
            dropRest(d.offset());
            if (!pending.isEmpty()) {
                interruptedRevision = pending.get(0).revision();
            } else if (d.claimedTxnCont() && d.claimedRevision() >= 0) {
                // The damaged record opened a transaction: what follows with its revision is the rest of it.
                interruptedRevision = d.claimedRevision();
            }
            dropPending("interrupted by " + d.kind().label() + " at offset " + d.offset());
            sink.damage(d);
            return;
        }
        WalEntry e = (WalEntry) item;
        if (interruptedRevision >= 0) {
            if (e.revision() == interruptedRevision) {
                rest.add(e);
                if (!e.isTxnCont()) dropRest(e.offset() + e.length());
                return;
            }
            dropRest(e.offset());
        }
        if (!pending.isEmpty() && pending.get(0).revision() != e.revision()) {
            dropPending("the next record at offset " + e.offset() + " carries revision " + e.revision());
        }
        if (e.isTxnCont()) {
            pending.add(e);
            return;
        }
        if (pending.isEmpty()) {
            sink.transaction(Transaction.of(e.revision(), List.of(e)));
        } else {
            pending.add(e);
            sink.transaction(Transaction.of(e.revision(), List.copyOf(pending)));
            pending.clear();
        }
    }

    /** Whether nothing is pending: the next record that is not TXN_CONT closes a transaction of its own. */
    public boolean idle() {
        return pending.isEmpty() && interruptedRevision < 0;
    }

    /** The end of the log: a pending transaction never committed. */
    public void end() {
        dropPending("the log ends");
        dropRest(-1);
    }

    /** Drops the records of an interrupted transaction found after the damage. */
    private void dropRest(long at) {
        if (!rest.isEmpty()) {
            WalEntry first = rest.get(0);
            WalEntry last = rest.get(rest.size() - 1);
            sink.finding(new Finding(DamageKind.INCOMPLETE_TRANSACTION, first.offset(), last.offset() + last.length() - first.offset(),
                    first.revision(), rest.size(), rest.size() + " record(s) of revision " + first.revision()
                            + " after damage: the rest of a transaction that lost records"));
            rest.clear();
        }
        interruptedRevision = -1;
    }

    private void dropPending(String why) {
        if (pending.isEmpty()) return;
        WalEntry first = pending.get(0);
        WalEntry last = pending.get(pending.size() - 1);
        sink.finding(new Finding(DamageKind.INCOMPLETE_TRANSACTION, first.offset(), last.offset() + last.length() - first.offset(),
                first.revision(), pending.size(), pending.size() + " TXN_CONT record(s) of revision " + first.revision()
                        + " without their closing record: " + why));
        pending.clear();
    }

    /** Runs every item of {@code source} through a grouper into {@code sink}. */
    public static void run(EntrySource source, Sink sink, Consumer<LogItem> tap) {
        TransactionGrouper g = new TransactionGrouper(sink);
        for (LogItem it; (it = source.next()) != null; ) {
            if (tap != null) tap.accept(it);
            g.accept(it);
        }
        g.end();
    }
}
