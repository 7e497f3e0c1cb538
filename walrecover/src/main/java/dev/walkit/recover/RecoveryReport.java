package dev.walkit.recover;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.WalFormat;
import dev.walkit.format.replay.LeaseMetadata;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What a recovery did, or why it refused: everything the report prints. */
public final class RecoveryReport {
    /** A transaction left out, with where it was and why. */
    public record Dropped(long offset, long revision, int records, String why) {
    }

    /** A key whose recovered state differs from what the dropped transactions would have made it. */
    public record Loss(String change, byte[] key, long revision) {
    }

    public static final int MAX_LISTED = 10_000;

    RecoveryOptions options;
    Path input;
    WalFormat format;
    long inputBytes;
    long inputRecords;
    long keptTransactions;
    long keptRecords;
    long droppedTransactions;
    final List<Dropped> dropped = new ArrayList<>();
    final List<DamageSpan> damage = new ArrayList<>();
    final List<Finding> findings = new ArrayList<>();
    final List<Loss> loss = new ArrayList<>();
    long finalRevision;
    long compactRevision;
    long liveKeys;
    LeaseMetadata leases;
    String stateDigest;
    Path output;
    long outputBytes;
    String outputSha256;
    String refused;
    /** The output's form: history or snapshot. */
    String form;
    /** Why the snapshot form was written where the history form was asked for, or null. */
    String formWhy;

    public String form() {
        return form;
    }

    public String formWhy() {
        return formWhy;
    }

    public String refused() {
        return refused;
    }

    public long keptTransactions() {
        return keptTransactions;
    }

    public long droppedTransactions() {
        return droppedTransactions;
    }

    public List<Dropped> dropped() {
        return dropped;
    }

    public List<DamageSpan> damage() {
        return damage;
    }

    public List<Finding> findings() {
        return findings;
    }

    public List<Loss> loss() {
        return loss;
    }

    public long finalRevision() {
        return finalRevision;
    }

    public long compactRevision() {
        return compactRevision;
    }

    public long liveKeys() {
        return liveKeys;
    }

    public LeaseMetadata leases() {
        return leases;
    }

    public String stateDigest() {
        return stateDigest;
    }

    public Path output() {
        return output;
    }

    public String outputSha256() {
        return outputSha256;
    }

    public WalFormat format() {
        return format;
    }

    public RecoveryOptions options() {
        return options;
    }

    public long inputBytes() {
        return inputBytes;
    }

    public long inputRecords() {
        return inputRecords;
    }

    public long keptRecords() {
        return keptRecords;
    }

    public long outputBytes() {
        return outputBytes;
    }

    public Path input() {
        return input;
    }
}
