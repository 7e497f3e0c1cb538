package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;

/**
 * The record and transaction rules of docs/format.md §5, written once. Replay with findings
 * ({@link Replayer}, record by record and in batches) and the light replay that stops at the first
 * thing a finding would be made of ({@link CleanReplay}, a whole log or a part joined later) ask these
 * functions; none of them restates a rule. The snapshot prefix's rules (§6) are {@link SnapshotPrefix}.
 */
public final class Rules {
    private Rules() {
    }

    /**
     * §5: outside the snapshot prefix, transaction revisions strictly increase: a transaction at {@code revision}
     * may follow the last applied one at {@code last} only when it is greater. {@code anyApplied}: whether any
     * transaction or a snapshot marker was applied before (the first transaction may start anywhere).
     */
    public static boolean revisionAdvances(long revision, long last, boolean anyApplied) {
        return !anyApplied || revision > last;
    }

    /** §5: the create_revision a PUT at {@code revision} must carry, given the key's state before it. */
    public static long expectedCreateRevision(boolean live, long liveCreateRevision, long revision) {
        return live ? liveCreateRevision : revision;
    }

    /** §5: the version a PUT must carry, given the key's state before it. */
    public static long expectedVersion(boolean live, long liveVersion) {
        return live ? liveVersion + 1 : 1;
    }

    /**
     * §5 for a store that keeps no version (kine): the version a PUT gets, counted from the key's state before it. A
     * put that {@code creates} the key (its create_revision is its own revision) is version 1 whatever came before;
     * otherwise what {@link #expectedVersion} derives. The light replay, the full replay of a store's form and the
     * writer of its WAL file count by this one function.
     */
    public static long countedVersion(boolean creates, boolean live, long liveVersion) {
        return creates ? 1 : expectedVersion(live, liveVersion);
    }

    /**
     * Whether a record breaks no rule of §5, given its key's state before it ({@code live}, with that state's
     * create_revision and version): a PUT carries the create_revision and version §5 derives, a DELETE deletes a
     * live key. One expression, for the replays' hot paths.
     */
    public static boolean holds(boolean delete, boolean live, long liveCreateRevision, long liveVersion, long revision,
                                long createRevision, long version) {
        return delete ? live
                : createRevision == expectedCreateRevision(live, liveCreateRevision, revision)
                && version == expectedVersion(live, liveVersion);
    }

    /**
     * The rule a record breaks ({@link #holds} false), or null: {@link DamageKind#VERSION_MISMATCH} for a PUT,
     * {@link DamageKind#DELETE_OF_ABSENT_KEY} for a DELETE.
     */
    public static DamageKind broken(boolean delete, boolean live, long liveCreateRevision, long liveVersion, long revision,
                                    long createRevision, long version) {
        if (holds(delete, live, liveCreateRevision, liveVersion, revision, createRevision, version)) return null;
        return delete ? DamageKind.DELETE_OF_ABSENT_KEY : DamageKind.VERSION_MISMATCH;
    }
}
