package dev.walkit.format.assess;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a log's damage and findings amount to, for the operator and for a recovery policy: the one place
 * "healthy", "only a torn tail" and "the tail" are defined (docs/format.md §9). walverify's verdict and
 * exit code, waldoctor's diagnosis and walrecover's tolerate-tail decision all ask this.
 *
 * <p>The tail ({@link #tailStart}) is the damage after which no valid record follows (§9): the run of damaged spans,
 * each touching the next, that reaches the end of the file; with the incomplete transaction the tail cut (its valid
 * first records, which the tail's drop takes with it). A damaged span that a valid record follows is not tail, even
 * when that record's transaction is cut by the tail: the record may be an acknowledged write's, so the cautious
 * policy refuses there (as RocksDB's tolerates only an incomplete trailing record).
 *
 * @param verdict   the class of the log
 * @param tailStart the offset where the tail begins; the file size when there is no tail
 */
public record Assessment(Verdict verdict, long tailStart) {
    /** The class of a log, in the order of severity. */
    public enum Verdict {
        /** No damage and no finding. */
        HEALTHY("healthy"),
        /** Nothing but a torn tail (and the incomplete transaction it cut): what tolerate-tail repairs. */
        TORN_TAIL("torn-tail"),
        /** Damaged spans or incomplete transactions beyond a torn tail. */
        DAMAGED("damaged"),
        /** No damaged byte, but a rule of §5/§6 broken (reported as "damaged", as it always was). */
        RULES_BROKEN("damaged");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        /** The word in reports and JSON ({@code healthy}, {@code torn-tail}, {@code damaged}). */
        public String label() {
            return label;
        }
    }

    /** Assesses the damaged spans and findings of a log of {@code fileSize} bytes (findings other than these, none). */
    public static Assessment of(List<DamageSpan> damage, List<Finding> findings, long fileSize) {
        List<long[]> spans = new ArrayList<>();
        for (DamageSpan d : damage) spans.add(new long[] {d.offset(), d.end()});
        List<long[]> incomplete = new ArrayList<>();
        boolean rules = false;
        for (Finding f : findings) {
            if (f.kind() == DamageKind.INCOMPLETE_TRANSACTION) incomplete.add(new long[] {f.offset(), f.offset() + f.length()});
            else if (f.kind() != DamageKind.LEFTOVER_COMPACTION) rules = true;
        }
        // The damaged spans, each touching the next, that reach the end of the file.
        spans.sort(Comparator.comparingLong((long[] x) -> x[1]).reversed());
        long tailStart = fileSize;
        for (long[] x : spans) {
            if (x[1] < tailStart) break;
            tailStart = Math.min(tailStart, x[0]);
        }
        // With the transaction the tail cut: it runs into the tail (or, with no damaged byte, to the end of the file).
        long spansStart = tailStart;
        for (long[] x : incomplete) {
            if (x[1] >= spansStart) tailStart = Math.min(tailStart, x[0]);
        }
        List<long[]> lost = new ArrayList<>(spans);
        lost.addAll(incomplete);
        if (lost.isEmpty()) return new Assessment(rules ? Verdict.RULES_BROKEN : Verdict.HEALTHY, fileSize);
        boolean tornTailOnly = !rules && damage.size() <= 1 && damage.stream().allMatch(d -> d.kind() == DamageKind.TORN_TAIL && d.end() == fileSize);
        for (long[] x : lost) {
            if (x[0] < tailStart) tornTailOnly = false;
        }
        return new Assessment(tornTailOnly ? Verdict.TORN_TAIL : Verdict.DAMAGED, tailStart);
    }

    public boolean healthy() {
        return verdict == Verdict.HEALTHY;
    }

    /**
     * The verdict of a store read into its WAL form (an etcd db, kine's state.db): the form's, unless the store's
     * own format is damaged ({@code storeDamage} places: bbolt pages, etcdctl's checksum, SQLite's check), which
     * makes it damaged whatever the history read.
     */
    public Verdict verdictWith(int storeDamage) {
        return storeDamage > 0 ? Verdict.DAMAGED : verdict;
    }
}
