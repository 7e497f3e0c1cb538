package dev.walkit.format.replay;

import java.util.List;

/**
 * Where the revisions of a log went, in the words all the tools use (docs/format.md, "Counting revisions").
 * Of the ordinary revisions after the snapshot prefix ({@code base + 1 .. top}), each was <em>applied</em>
 * (its transaction replayed), <em>dropped</em> (its records read, the transaction not applied: incomplete,
 * refused by a rule or by the policy), possibly <em>in damaged bytes</em> (a gap in the revisions across a
 * damaged span: up to that many transactions were there), or <em>skipped</em> (a gap elsewhere, which the
 * format allows: a revision consumed by a write the log does not keep). The four add up to the span.
 *
 * @param base        the revision the prefix stands for (the compact revision; 0 without one)
 * @param top         the highest revision read, applied or dropped
 * @param applied     ordinary transactions applied
 * @param dropped     transactions read and not applied whose revision was above the last applied one
 * @param damagedUpTo the revisions a gap across a damaged span leaves unaccounted for
 */
public record RevisionAccount(long base, long top, long applied, long dropped, long damagedUpTo) {
    /** The account of a replay, its damaged spans located in revisions. */
    public static RevisionAccount of(Replayer s, List<DamageLocator.Located> damage) {
        long gaps = 0;
        for (DamageLocator.Located l : damage) {
            if (l.revisionBefore() >= 0 && l.revisionAfter() > l.revisionBefore()) gaps += l.revisionAfter() - l.revisionBefore() - 1;
        }
        return new RevisionAccount(s.compactRevision(), s.topRevision(), s.ordinaryApplied(), s.droppedAhead(), gaps);
    }

    public long span() {
        return Math.max(0, top - base);
    }

    /** Gaps the format allows: revisions neither applied, dropped nor across damage. */
    public long skipped() {
        return Math.max(0, span() - applied - dropped - damagedUpTo);
    }

    /** One line: {@code revisions 1..325: 318 applied, 1 dropped (read, not applied), up to 2 in damaged bytes, 4 skipped (gaps the format allows)}. */
    public String text() {
        if (span() == 0) return "no ordinary revisions" + (base > 0 ? " after the compact revision " + base : "");
        return String.format("revisions %d..%d: %,d applied, %,d dropped (read, not applied), up to %,d in damaged bytes, %,d skipped (gaps the format allows)",
                base + 1, top, applied, dropped, damagedUpTo, skipped());
    }
}
