package dev.walkit.format.pass;

import dev.walkit.format.DamageKind;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.LeaseMetadata;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * What a report tallies of a store, beside the one account: its facts, the leases, each key's writes and live value,
 * every applied revision. The pass's history gives it ({@link StoreHistory}), and so does a read that keeps no history
 * ({@link Pass#tally}: an etcd db or a kine db replayed as its form is made, no file written).
 */
public interface Tallies extends AutoCloseable {
    /** What was read, kept and lost. */
    Account account();

    /** What was opened: the store's kind and file, and its own facts. */
    StoreHistory.Source source();

    /** The leases the replay rebuilt. */
    LeaseMetadata leaseMetadata();

    /** The last revision applied. */
    long revision();

    /** The compact revision the replay holds (-1: none). */
    long compactRevision();

    /** How many findings of each kind the rules made (every one). */
    Map<DamageKind, Integer> findingCounts();

    /** Every key with an applied record or live at the end, in no order. */
    void forEachKey(StoreHistory.KeyVisitor v);

    /** The revision of every applied record, in the order applied. */
    void forEachAppliedRevision(LongConsumer v);

    /** A compaction's leftover file beside a WAL, or null. */
    Path leftoverCompaction();

    @Override
    void close() throws java.io.IOException;
}
