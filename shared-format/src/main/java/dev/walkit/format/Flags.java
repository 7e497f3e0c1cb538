package dev.walkit.format;

/** The flags byte of a v2 record (docs/format.md §4). */
public final class Flags {
    /** A tombstone: kv_bytes holds only key and mod_revision. */
    public static final int DELETE = 0x01;
    /** Not the last record of its transaction. */
    public static final int TXN_CONT = 0x02;
    /** Part of the snapshot prefix written by compaction (§6). */
    public static final int SNAPSHOT = 0x04;
    /** Bits 3-7: must be zero; a set reserved bit is damage (or a newer format). */
    public static final int RESERVED_MASK = 0xF8;

    private Flags() {
    }

    public static boolean isDelete(int flags) {
        return (flags & DELETE) != 0;
    }

    public static boolean isTxnCont(int flags) {
        return (flags & TXN_CONT) != 0;
    }

    public static boolean isSnapshot(int flags) {
        return (flags & SNAPSHOT) != 0;
    }

    public static boolean hasReserved(int flags) {
        return (flags & RESERVED_MASK) != 0;
    }

    /** Human form, e.g. {@code DELETE|TXN_CONT}, or {@code -} when no bit is set. */
    public static String describe(int flags) {
        StringBuilder sb = new StringBuilder();
        if (isDelete(flags)) sb.append("DELETE|");
        if (isTxnCont(flags)) sb.append("TXN_CONT|");
        if (isSnapshot(flags)) sb.append("SNAPSHOT|");
        if (hasReserved(flags)) sb.append(String.format("RESERVED(0x%02x)|", flags & RESERVED_MASK));
        return sb.length() == 0 ? "-" : sb.substring(0, sb.length() - 1);
    }
}
