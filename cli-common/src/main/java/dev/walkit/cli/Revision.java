package dev.walkit.cli;

/** A revision (or count) that may be absent (negative), as the reports print it. */
public final class Revision {
    private Revision() {
    }

    /** In text: the number, or "-" for none. */
    public static String text(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }

    /** In a table cell or JSON: the number, or null (an empty cell) for none. */
    public static Long cell(long r) {
        return r < 0 ? null : r;
    }
}
