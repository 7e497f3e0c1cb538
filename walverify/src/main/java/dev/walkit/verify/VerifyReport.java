package dev.walkit.verify;

import dev.walkit.format.Assessment;
import dev.walkit.format.Finding;
import dev.walkit.format.SplitScan;
import dev.walkit.format.WalFormat;
import dev.walkit.format.replay.DamageLocator;

import java.nio.file.Path;
import java.util.List;

/**
 * What one verification found, as a value: the facts of the log, its damage and findings, and (derived) the
 * verdict. Printed by one {@link VerifyPrinter} per {@code -w} format.
 *
 * @param firstRevision      the first revision read, -1 when none
 * @param lastRevision       the last revision read, -1 when none
 * @param compactRevision    the snapshot marker's revision, -1 when none
 * @param liveKeys           semantic level: live keys after replay; -1 below it
 * @param tombstones         semantic level: keys deleted; -1 below it
 * @param leftoverCompaction a compaction's leftover file beside the log, or null
 * @param grewTo             the file's size after the read when it had grown meanwhile (a running store
 *                           appending), else -1: only the first {@code bytes} were verified, and a torn tail
 *                           there may be a write in progress rather than damage
 * @param cleanPath          semantic level: the light replay took the log (found it clean), no full replay
 * @param cleanPathEnded     what ended the light replay when it was tried and ended, else null
 * @param scan               how the frame/decode scan used the threads (its contents do not depend on it)
 * @param store              "wal", or "etcd-db" (an etcd db read from bbolt's format; its history replayed as a WAL)
 * @param storeDetail        an etcd db's own facts (page size, txid, consistent index), else empty
 * @param storeDamage        an etcd db's damage, by page and offset; any makes the verdict damaged
 */
public record VerifyReport(Path path, WalFormat format, VerifyLevel level, long bytes, long records, long transactions,
                           long firstRevision, long lastRevision, long compactRevision, long liveKeys, long tombstones,
                           List<DamageLocator.Located> damage, List<Finding> findings, Path leftoverCompaction, long grewTo,
                           boolean cleanPath, String cleanPathEnded, SplitScan.Outcome scan, String store, String storeDetail,
                           List<String> storeDamage) {

    public VerifyReport {
        damage = List.copyOf(damage);
        findings = List.copyOf(findings);
        storeDamage = List.copyOf(storeDamage);
    }

    public boolean isWal() {
        return store.equals("wal");
    }

    /** The verdict: the log's {@link Assessment}, or damaged when the store's own format is. */
    public Assessment.Verdict verdictOf() {
        return assessment().verdictWith(storeDamage.size());
    }

    /** What the damage and findings amount to ({@link Assessment}: the one definition of "torn tail only"). */
    public Assessment assessment() {
        return Assessment.of(damage.stream().map(DamageLocator.Located::span).toList(), findings, bytes);
    }

    /** True when the only damage is at the tail: one torn tail reaching the end of the file, and findings only about it. */
    public boolean tailOnly() {
        return verdictOf() == Assessment.Verdict.TORN_TAIL;
    }

    public boolean healthy() {
        return verdictOf() == Assessment.Verdict.HEALTHY;
    }

    /** healthy, torn-tail or damaged. */
    public String verdict() {
        return verdictOf().label();
    }
}
