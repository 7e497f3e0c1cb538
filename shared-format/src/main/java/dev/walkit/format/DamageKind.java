package dev.walkit.format;

/**
 * The known damage of docs/format.md §7, by name. {@link #label()} is the kebab-case form used in
 * JSON and on the command line. The first group are damaged byte spans (the reader's results),
 * the second are findings of transaction grouping and replay.
 */
public enum DamageKind {
    // Damaged byte spans: reported by the reader with offset and length.
    TORN_TAIL("torn-tail", true, "the last record is cut short by the end of the file (a crash mid-append)"),
    CRC_MISMATCH("crc-mismatch", true, "a complete record whose stored CRC does not match"),
    BAD_HEADER("bad-header", true, "rec_len past the file end or above the maximum, reserved flag bits set, or offsets out of range"),
    INCONSISTENT_HEADER("inconsistent-header", true, "CRC is right but key_offset / mod_rev_offset disagree with kv_bytes"),
    UNDECODABLE_PAYLOAD("undecodable-payload", true, "CRC is right but kv_bytes is not a valid KeyValue"),
    GARBAGE_SPAN("garbage-span", true, "bytes between two valid records that form no valid record"),
    CRC_RANGE_BUG("crc-range-bug", true, "stored CRCs match another byte range: the data is intact, the CRCs are wrong"),
    // Findings of grouping and replay.
    INCOMPLETE_TRANSACTION("incomplete-transaction", false, "TXN_CONT records not followed by their closing record"),
    REVISION_REGRESSION("revision-regression", false, "a transaction revision that repeats or decreases"),
    VERSION_MISMATCH("version-create-revision-mismatch", false, "a PUT that breaks the create_revision/version rules"),
    TRUNCATED_SNAPSHOT("truncated-snapshot", false, "a snapshot marker whose count exceeds the records present"),
    MISPLACED_SNAPSHOT("misplaced-snapshot", false, "snapshot records anywhere but in the prefix at offset 0, or more than the marker counts"),
    DELETE_OF_ABSENT_KEY("delete-of-absent-key", false, "a DELETE of a key that is not live (not written by a healthy store)"),
    LEFTOVER_COMPACTION("leftover-compaction", false, "wal.compact exists beside wal: a compaction did not finish");

    private final String label;
    private final boolean span;
    private final String meaning;

    DamageKind(String label, boolean span, String meaning) {
        this.label = label;
        this.span = span;
        this.meaning = meaning;
    }

    public String label() {
        return label;
    }

    /** True for the kinds the reader reports as byte spans. */
    public boolean isSpan() {
        return span;
    }

    public String meaning() {
        return meaning;
    }
}
