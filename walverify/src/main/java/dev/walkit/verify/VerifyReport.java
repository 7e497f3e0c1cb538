package dev.walkit.verify;

import dev.walkit.format.Assessment;
import dev.walkit.format.Finding;
import dev.walkit.format.WalFormat;
import dev.walkit.format.replay.DamageLocator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What one verification found: the facts of the log, its damage and findings, and the verdict. */
public final class VerifyReport {
    /** How the frame/decode scan used the threads (not part of the report: its contents do not depend on it). */
    SplitScan.Outcome scan = SplitScan.Outcome.ONE_THREAD;


    Path path;
    WalFormat format;
    VerifyLevel level;
    long bytes;
    long records;
    long transactions;
    long firstRevision = -1;
    long lastRevision = -1;
    long compactRevision = -1;
    long liveKeys = -1;
    /** Semantic level: the log was found clean by the fast path ({@link dev.walkit.format.replay.CleanScan}), not replayed by {@code Replayer}. */
    boolean cleanPath;
    /** What ended the fast path, when it was tried and ended. */
    String cleanPathEnded;
    long tombstones = -1;
    final List<DamageLocator.Located> damage = new ArrayList<>();
    final List<Finding> findings = new ArrayList<>();
    Path leftoverCompaction;
    /** The file's size after the read when it had grown meanwhile (a running store appending), else -1. */
    long grewTo = -1;

    public Path path() {
        return path;
    }

    public WalFormat format() {
        return format;
    }

    public VerifyLevel level() {
        return level;
    }

    public long bytes() {
        return bytes;
    }

    public long records() {
        return records;
    }

    public long transactions() {
        return transactions;
    }

    public long firstRevision() {
        return firstRevision;
    }

    public long lastRevision() {
        return lastRevision;
    }

    public long compactRevision() {
        return compactRevision;
    }

    public long liveKeys() {
        return liveKeys;
    }

    public long tombstones() {
        return tombstones;
    }

    public List<DamageLocator.Located> damage() {
        return damage;
    }

    public List<Finding> findings() {
        return findings;
    }

    /**
     * The file's size once the read was done, when larger than {@link #bytes()}: a store was appending while
     * it was read. Only the first {@link #bytes()} were verified, and a torn tail there may be a write in
     * progress rather than damage. -1 when the size did not change.
     */
    public long grewTo() {
        return grewTo;
    }

    public Path leftoverCompaction() {
        return leftoverCompaction;
    }

    /** What the damage and findings amount to ({@link Assessment}: the one definition of "torn tail only"). */
    public Assessment assessment() {
        return Assessment.of(damage.stream().map(DamageLocator.Located::span).toList(), findings, bytes);
    }

    /** True when the only damage is at the tail: one torn tail reaching the end of the file, and findings only about it. */
    public boolean tailOnly() {
        return assessment().verdict() == Assessment.Verdict.TORN_TAIL;
    }

    public boolean healthy() {
        return assessment().healthy();
    }

    /** healthy, torn-tail or damaged. */
    public String verdict() {
        return assessment().verdict().label();
    }
}
