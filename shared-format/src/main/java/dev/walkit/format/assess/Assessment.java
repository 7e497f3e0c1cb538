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
 * <p>The tail ({@link #tailStart}) is the damage after which no valid record follows: the longest run of
 * damaged spans and incomplete transactions, each touching the next, that reaches the end of the file.
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
        List<long[]> lost = new ArrayList<>();
        for (DamageSpan d : damage) lost.add(new long[] {d.offset(), d.end()});
        boolean rules = false;
        for (Finding f : findings) {
            if (f.kind() == DamageKind.INCOMPLETE_TRANSACTION) lost.add(new long[] {f.offset(), f.offset() + f.length()});
            else if (f.kind() != DamageKind.LEFTOVER_COMPACTION) rules = true;
        }
        lost.sort(Comparator.comparingLong((long[] x) -> x[1]).reversed());
        long tailStart = fileSize;
        for (long[] x : lost) {
            if (x[1] < tailStart) break;
            tailStart = Math.min(tailStart, x[0]);
        }
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
