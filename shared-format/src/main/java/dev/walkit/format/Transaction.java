package dev.walkit.format;

import java.util.List;

/**
 * A complete transaction (docs/format.md §5): a run of TXN_CONT records closed by one without it,
 * all with the same revision. A snapshot-prefix record is a transaction of one.
 */
public record Transaction(long revision, List<WalEntry> entries) {
    public long offset() {
        return entries.get(0).offset();
    }

    public long end() {
        WalEntry last = entries.get(entries.size() - 1);
        return last.offset() + last.length();
    }

    public boolean isSnapshot() {
        return entries.get(0).isSnapshot();
    }
}
