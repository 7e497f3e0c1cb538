package dev.walkit.recover;

import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.LeaseMetadata;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a recovery did, or why it refused, as a value: everything the report prints.
 *
 * @param refused   why nothing was written, or null
 * @param form      the output's form: history or snapshot
 * @param formWhy   why the snapshot form was written where the history form was asked for, or null
 * @param cleanedUp what was put right under the lock before writing: an earlier run's unfinished switch undone, its temp files removed (sentences)
 * @param account   the one account of the input, as replayed under the policy (null when it could not be read)
 * @param revisions where the input's revisions went (docs/format.md, "Counting revisions"), or null before replay
 * @param keptAs    the suffix the old {@code wal} and {@code leases.json} were kept under ({@code .broken.TIMESTAMP}), or null when there were none
 * @param storeNote what the output in another store than a WAL holds and how to use it (an etcd db's restore command), or null
 */
public record RecoveryReport(RecoveryOptions options, Path input, WalFormat format, long inputBytes, long inputRecords,
                             long keptTransactions, long keptRecords, long droppedTransactions, Account account, List<Loss> loss, long finalRevision,
                             long compactRevision, long liveKeys, LeaseMetadata leases, String stateDigest, Path output,
                             long outputBytes, String outputChecksum, String refused, String form, String formWhy,
                             List<String> cleanedUp, String keptAs, dev.walkit.format.replay.RevisionAccount revisions, String storeNote) {
    /** A key whose recovered state differs from what the dropped transactions would have made it. */
    public record Loss(String change, byte[] key, long revision) {
    }

    public static final int MAX_LISTED = 10_000;

    public RecoveryReport {
        loss = List.copyOf(loss);
        cleanedUp = List.copyOf(cleanedUp);
    }

    /** The report as a recovery finds it out, step by step; {@link #done()} makes the value. */
    static final class Draft {
        RecoveryOptions options;
        Path input;
        WalFormat format;
        long inputBytes;
        long inputRecords;
        long keptTransactions;
        long keptRecords;
        long droppedTransactions;
        Account account;
        final List<Loss> loss = new ArrayList<>();
        long finalRevision;
        long compactRevision;
        long liveKeys;
        LeaseMetadata leases;
        String stateDigest;
        Path output;
        long outputBytes;
        String outputChecksum;
        String refused;
        String form;
        String formWhy;
        final List<String> cleanedUp = new ArrayList<>();
        String keptAs;
        dev.walkit.format.replay.RevisionAccount revisions;
        String storeNote;

        RecoveryReport done() {
            return new RecoveryReport(options, input, format, inputBytes, inputRecords, keptTransactions, keptRecords,
                    droppedTransactions, account, loss, finalRevision, compactRevision, liveKeys, leases,
                    stateDigest, output, outputBytes, outputChecksum, refused, form, formWhy, cleanedUp, keptAs, revisions, storeNote);
        }
    }
}
