package dev.walkit.format.group;

import dev.walkit.format.WalEntry;
import java.util.List;

/**
 * A complete transaction (docs/format.md §5): a run of TXN_CONT records closed by one without it,
 * all with the same revision. A snapshot-prefix record is a transaction of one.
 *
 * <p>Grouping makes one of its {@link WalEntry}s ({@link #of}). Replay of a v2 log also applies a
 * transaction straight from the reader's batch, with no object made per record: it then hands its
 * listener a view of that transaction, valid during the call, whose {@link #entries()} are made on
 * demand (copies, which may be kept).
 */
public interface Transaction {
    long revision();

    /** File offset of its first record. */
    long offset();

    /** File offset just after its closing record. */
    long end();

    /** How many records it has. */
    int records();

    boolean isSnapshot();

    /**
     * True when replay applied it straight from a v2 reader's batch: its records are ordinary v2 records whose
     * stored CRCs are over the standard range, one after the other, so its bytes {@code [offset, end)} are a
     * valid v2 transaction as they stand. False when that is not known (a grouped transaction: look at its entries).
     */
    boolean plain();

    /** Its records, in log order (made on demand for a view). */
    List<WalEntry> entries();

    /** A transaction of {@code entries}, which grouping found complete with {@code revision}. */
    static Transaction of(long revision, List<WalEntry> entries) {
        return new Grouped(revision, entries);
    }

    /** A transaction as grouping made it, of its {@link WalEntry}s. */
    record Grouped(long revision, List<WalEntry> entries) implements Transaction {
        @Override
        public long offset() {
            return entries.get(0).offset();
        }

        @Override
        public long end() {
            WalEntry last = entries.get(entries.size() - 1);
            return last.offset() + last.length();
        }

        @Override
        public int records() {
            return entries.size();
        }

        @Override
        public boolean isSnapshot() {
            return entries.get(0).isSnapshot();
        }

        @Override
        public boolean plain() {
            return false;
        }
    }
}
