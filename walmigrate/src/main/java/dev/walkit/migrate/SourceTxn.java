package dev.walkit.migrate;

import java.util.List;

/**
 * A transaction of the source, whole: every change it made, all at {@code revision}; applied to the target as one
 * transaction.
 *
 * @param seenNanos when the follower first read it (System.nanoTime): the lag in seconds is counted from here
 */
public record SourceTxn(long revision, List<Change> changes, long seenNanos) {
    public SourceTxn {
        changes = List.copyOf(changes);
    }
}
