package dev.walkit.migrate;

/**
 * What a follow did after its copy, as a value.
 *
 * @param resumed          where a run killed earlier was taken up ("the copy at revision R", "after revision R"); null
 *                         for a first run
 * @param copyRevision     the revision the copy is of
 * @param transactions     source transactions applied (each whole, in the source's order)
 * @param changes          the keys they changed
 * @param conflicts        changes not applied: the target's key was not what the source's was before (never overwritten)
 * @param conflictKeys     those changes' keys (the first {@link MigrationReport#MAX_LISTED})
 * @param alreadyAbsent    deletes of keys the target no longer held (a target lease expired while no follow kept it alive)
 * @param lagRevisionsP50  how many revisions the source was ahead when a transaction was applied (median; p99 beside)
 * @param lagMillisP50     from the follow reading a transaction to the target committing it (median; p99 beside)
 * @param cutoverRevision  the revision the target holds at the cut-over
 * @param cutoverWhy       what started the cut-over (the --cutover file, a signal, --until-revision)
 * @param cutoverSeconds   from that moment to the target verified and the marker removed
 * @param verify           the target against the source at the cut-over revision
 * @param pipeline         follow transactions allowed in flight at once (--pipeline)
 * @param mostInFlight     the most that were in flight at once
 * @param pipelineRestarts times the pipeline stopped (a compare failed, an answer was lost) and went on from the marker
 * @param splits           source transactions this shard applied part of (--route: their other keys went to another shard)
 * @param coalesce         source transactions one target transaction could take when the follow was behind (--coalesce)
 * @param targetTransactions the target transactions they were applied in (as many as {@code transactions} when none were coalesced)
 */
public record FollowReport(String resumed, long copyRevision, long transactions, long changes, long conflicts, java.util.List<byte[]> conflictKeys, long alreadyAbsent,
                           long lagRevisionsP50, long lagRevisionsP99, double lagMillisP50, double lagMillisP99,
                           long cutoverRevision, String cutoverWhy, double cutoverSeconds, Comparison verify,
                           int pipeline, int mostInFlight, long pipelineRestarts, long splits,
                           int coalesce, long targetTransactions) {
}
