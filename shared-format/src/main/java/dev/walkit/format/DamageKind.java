package dev.walkit.format;

/**
 * The known damage of docs/format.md §7, by name. {@link #label()} is the kebab-case form used in
 * JSON and on the command line. The first group are damaged byte spans (the reader's results),
 * the second are findings of transaction grouping and replay. What each means for the operator is
 * {@link Meaning}'s one table.
 */
public enum DamageKind {
    // Damaged byte spans: reported by the reader with offset and length.
    TORN_TAIL("torn-tail", true),
    CRC_MISMATCH("crc-mismatch", true),
    BAD_HEADER("bad-header", true),
    INCONSISTENT_HEADER("inconsistent-header", true),
    UNDECODABLE_PAYLOAD("undecodable-payload", true),
    GARBAGE_SPAN("garbage-span", true),
    CRC_RANGE_BUG("crc-range-bug", true),
    // Findings of grouping and replay.
    INCOMPLETE_TRANSACTION("incomplete-transaction", false),
    REVISION_REGRESSION("revision-regression", false),
    VERSION_MISMATCH("version-create-revision-mismatch", false),
    TRUNCATED_SNAPSHOT("truncated-snapshot", false),
    MISPLACED_SNAPSHOT("misplaced-snapshot", false),
    DELETE_OF_ABSENT_KEY("delete-of-absent-key", false),
    LEFTOVER_COMPACTION("leftover-compaction", false);

    private final String label;
    private final boolean span;
    DamageKind(String label, boolean span) {
        this.label = label;
        this.span = span;
    }

    public String label() {
        return label;
    }

    /** True for the kinds the reader reports as byte spans. */
    public boolean isSpan() {
        return span;
    }
}
