package dev.walkit.format;

/**
 * The known damage of docs/format.md §7, by name. {@link #label()} is the kebab-case form used in
 * JSON and on the command line. The first group are damaged byte spans (the reader's results),
 * the second are findings of transaction grouping and replay. What each means for the operator is
 * {@link dev.walkit.format.assess.Meaning}'s one table.
 */
public enum DamageKind {
    // Damaged byte spans: reported by the reader with offset and length.
    TORN_TAIL("torn-tail"),
    CRC_MISMATCH("crc-mismatch"),
    BAD_HEADER("bad-header"),
    INCONSISTENT_HEADER("inconsistent-header"),
    UNDECODABLE_PAYLOAD("undecodable-payload"),
    GARBAGE_SPAN("garbage-span"),
    CRC_RANGE_BUG("crc-range-bug"),
    // Findings of grouping and replay.
    INCOMPLETE_TRANSACTION("incomplete-transaction"),
    REVISION_REGRESSION("revision-regression"),
    /** A revision regression whose transaction repeats the one before it byte for byte: written twice. */
    DUPLICATED_RECORD("duplicated-record"),
    VERSION_MISMATCH("version-create-revision-mismatch"),
    TRUNCATED_SNAPSHOT("truncated-snapshot"),
    MISPLACED_SNAPSHOT("misplaced-snapshot"),
    DELETE_OF_ABSENT_KEY("delete-of-absent-key"),
    /** A record intact (its CRC matches) whose Kubernetes value is not what the apiserver writes (walverify --level values). */
    UNDECODABLE_VALUE("undecodable-value"),
    LEFTOVER_COMPACTION("leftover-compaction");

    private final String label;

    DamageKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
