package dev.walkit.cli;

/** A revision (or count) that may be absent (negative), as the reports print it. */
public final class Revision {
    private Revision() {
    }

    /** In text: the number, or "-" for none. */
    public static String text(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }

    /**
     * Where a damaged span lies in revisions, as every report says it (docs/format.md, "Counting revisions"):
     * "inside revision R" between two records of one transaction, else "between revisions A and B", with the
     * revisions the gap across it leaves unaccounted for ("up to N lost").
     */
    public static String where(long before, long after) {
        if (before >= 0 && before == after) return "inside revision " + before;
        long lost = before >= 0 && after >= 0 ? Math.max(0, after - before - 1) : 0;
        return "between revisions " + text(before) + " and " + text(after) + (lost > 0 ? " (up to " + lost + " lost)" : "");
    }

    /** In a table cell or JSON: the number, or null (an empty cell) for none. */
    public static Long cell(long r) {
        return r < 0 ? null : r;
    }
}
