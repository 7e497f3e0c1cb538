package dev.walkit.format.pass;

import dev.walkit.format.assess.Assessment;
import dev.walkit.format.Finding;
import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.DamageLocator;

import java.nio.file.Path;
import java.util.List;

/**
 * What one verification found, as a value: the engine's {@link Account} of the pass (what was read, the damage and
 * findings, the verdict; after a replay, the state and where the revisions went) and what only walverify says of
 * the pass. Printed by one {@link VerifyPrinter} per {@code -w} format.
 *
 * @param leftoverCompaction a compaction's leftover file beside the log, or null
 * @param grewTo             the file's size after the read when it had grown meanwhile (a running store
 *                           appending), else -1: only the first {@code bytes} were verified, and a torn tail
 *                           there may be a write in progress rather than damage
 * @param cleanPath          semantic level: the light replay took the log (found it clean), no full replay
 * @param cleanPathEnded     what ended the light replay when it was tried and ended, else null
 * @param scan               how the frame/decode scan used the threads (its contents do not depend on it)
 */
public record PassReport(WalFormat format, Level level, Account account, Path leftoverCompaction, long grewTo,
                           boolean cleanPath, String cleanPathEnded, SplitScan.Outcome scan) {

    public Path path() {
        return account.store().path();
    }

    public boolean isWal() {
        return account.store().isWal();
    }

    /** "wal", "etcd-db" or "kine". */
    public String store() {
        return account.store().kind().label();
    }

    public String storeDetail() {
        return account.store().detail();
    }

    public List<String> storeDamage() {
        return account.store().damage();
    }

    public long bytes() {
        return account.store().bytes();
    }

    public long records() {
        return account.records();
    }

    public long transactions() {
        return account.transactions();
    }

    public long firstRevision() {
        return account.firstRevision();
    }

    public long lastRevision() {
        return account.lastRevision();
    }

    public long compactRevision() {
        return account.compactRevision();
    }

    public long liveKeys() {
        return account.liveKeys();
    }

    public long tombstones() {
        return account.tombstones();
    }

    public List<DamageLocator.Located> damage() {
        return account.damage();
    }

    public List<Finding> findings() {
        return account.findings();
    }

    /** The verdict: the account's. */
    public Assessment.Verdict verdictOf() {
        return account.verdict();
    }

    public boolean healthy() {
        return verdictOf() == Assessment.Verdict.HEALTHY;
    }

    /** healthy, torn-tail or damaged. */
    public String verdict() {
        return verdictOf().label();
    }
}
