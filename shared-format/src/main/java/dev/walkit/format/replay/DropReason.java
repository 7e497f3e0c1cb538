package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;
import dev.walkit.format.Finding;

/**
 * Why replay read a transaction and did not apply it (docs/format.md, "Counting revisions": dropped). A closed family:
 * a tool that says why branches on the type, never on words.
 */
public sealed interface DropReason {
    /** The reason in words, as every tool prints it. */
    String text();

    /** The finding that says so, or null when the drop is the policy's, not a rule's. */
    default Finding finding() {
        return null;
    }

    /** A rule of §5 or §6 refused it (a revision not above the last applied, a snapshot record out of place): {@code finding} names it. */
    record RuleBroken(Finding finding) implements DropReason {
        @Override
        public String text() {
            return finding.detail();
        }
    }

    /** Its closing record was never read (damage or the end of the file cut it): an incomplete transaction. */
    record Incomplete(Finding finding) implements DropReason {
        public Incomplete {
            if (finding.kind() != DamageKind.INCOMPLETE_TRANSACTION) throw new IllegalArgumentException(finding.kind().label());
        }

        @Override
        public String text() {
            return finding.detail();
        }
    }

    /** After the revision a point-in-time recovery was asked to stop at ({@code --to-revision}). */
    record AfterToRevision(long revision, long toRevision) implements DropReason {
        @Override
        public String text() {
            return "revision " + revision + " is after --to-revision " + toRevision;
        }
    }

    /** After the first damage, under the point-in-time policy (nothing after it is applied). */
    record AfterFirstDamage(long offset) implements DropReason {
        @Override
        public String text() {
            return "after the first damage at offset " + offset + " (point-in-time)";
        }
    }
}
