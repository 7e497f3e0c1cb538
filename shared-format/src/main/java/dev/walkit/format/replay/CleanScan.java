package dev.walkit.format.replay;

import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.WalFile;

import java.io.IOException;

/**
 * The light replay ({@link CleanReplay}) of a whole v2 log, on both cores for a large file ({@link SplitScan}): the
 * fast path of walverify's semantic level and of walrecover's read-back. Its unit is a transaction: the later part
 * starts at the first transaction that starts past the split point, keeping each key's first record there, and the
 * parts are joined as one replay would see them ({@link CleanReplay#join}). When the later part cannot judge alone
 * (a snapshot prefix that reaches past the middle), this thread reads on by itself. At the first thing a finding would
 * be made of, on either side, both stop and the caller replays the whole log with {@link Replayer}, which makes the
 * findings: the report is the same either way.
 */
public final class CleanScan {
    /** Below this, one thread. */
    public static final long MIN_SPLIT = SplitScan.MIN_SPLIT;

    /**
     * The first thread's share of the file, as measured on a 2 GiB log through bin/ (interleaved runs, 13
     * each): 51% 863 and 939 ms; 49% 894, 50% 986, 52% 954, 53% 965 ms. It follows how long each thread
     * runs the compiler's slower early code: 53% before the key tables changed, 49% before the launcher's
     * JIT directives.
     */
    public static final double FIRST_SHARE = 0.51;

    private CleanScan() {
    }

    /**
     * Replays {@code file} with {@code whole} (a {@link CleanReplay#whole()} or {@link CleanReplay#forDigest()};
     * later parts are made by {@link CleanReplay#newPart()}). Returns {@code whole} holding the state of the whole
     * log, or with its {@link CleanReplay#irregularity()} set when the light replay does not take the log.
     */
    public static CleanReplay scan(WalFile file, ReaderOptions ro, CleanReplay whole) throws IOException {
        return scan(file, ro, whole, MIN_SPLIT);
    }

    /** {@link #scan(WalFile, ReaderOptions, CleanReplay)}, in two parts from {@code minSplit} bytes (tests: 0 or MAX). */
    static CleanReplay scan(WalFile file, ReaderOptions ro, CleanReplay whole, long minSplit) throws IOException {
        SplitScan.Outcome o = SplitScan.scan(file, ro, whole, new Parts(whole), FIRST_SHARE, minSplit, "clean-replay-second-half");
        if (o != SplitScan.Outcome.STOPPED) whole.end();
        return whole;
    }

    /** A light replay's parts: a transaction is a unit. */
    private record Parts(CleanReplay whole) implements SplitScan.Parts<CleanReplay> {
        @Override
        public CleanReplay later() {
            return whole.newPart();
        }

        @Override
        public boolean endsUnit(RecordView v) {
            return !v.isTxnCont();
        }

        @Override
        public SplitScan.Join join(CleanReplay first, CleanReplay later) {
            return first.join(later) ? SplitScan.Join.JOINED : SplitScan.Join.STOPPED;
        }

        /** What ended the later part stops the first, unless it is a snapshot record past the middle: not the later part's to judge. */
        @Override
        public boolean stopsTheFirst(CleanReplay later) {
            return !later.endedAsAPart();
        }

        @Override
        public void stopped(CleanReplay first, CleanReplay later) {
            first.abandon(later.irregularity());
        }
    }
}
