package dev.walkit.format;

/**
 * A damaged byte span: from the first byte that is not part of a valid record to the first byte of
 * the next valid record, or the end of the file (docs/format.md §7).
 *
 * @param kind        why the bytes at {@code offset} are not a valid record
 * @param offset      first byte of the span
 * @param length      bytes in the span
 * @param detail      evidence in words, e.g. {@code rec_len 2147483647 exceeds the maximum 67108864}
 * @param storedCrc   the stored CRC of the record at {@code offset}, or -1 when there is none
 * @param computedCrc the CRC computed over the standard range, or -1
 * @param crcRange    for {@link DamageKind#CRC_RANGE_BUG}: the range the stored CRCs match
 * @param records     record frames inside the span that could be delimited (crc range bug: all of them)
 * @param claimedRevision the revision the damaged record's header points at, when its frame could be
 *                    delimited (untrusted evidence, -1 when unknown): grouping uses it, with
 *                    {@code claimedTxnCont}, to drop the rest of a transaction whose first record was damaged
 * @param claimedTxnCont  the damaged record's TXN_CONT flag, when its frame could be delimited
 */
public record DamageSpan(DamageKind kind, long offset, long length, String detail,
                         long storedCrc, long computedCrc, CrcRange crcRange, int records,
                         long claimedRevision, boolean claimedTxnCont)
        implements ReadResult, LogItem {

    DamageSpan(DamageKind kind, long offset, long length, String detail, long storedCrc, long computedCrc, CrcRange crcRange, int records) {
        this(kind, offset, length, detail, storedCrc, computedCrc, crcRange, records, -1, false);
    }

    public long end() {
        return offset + length;
    }

    /** The same span with the damaged record's claimed revision and TXN_CONT flag. */
    DamageSpan claiming(long revision, boolean txnCont) {
        return new DamageSpan(kind, offset, length, detail, storedCrc, computedCrc, crcRange, records, revision, txnCont);
    }

    /** The span with {@code more} bytes and {@code moreRecords} frames added at its end. */
    DamageSpan extend(long more, int moreRecords) {
        return new DamageSpan(kind, offset, length + more, detail, storedCrc, computedCrc, crcRange, records + moreRecords, claimedRevision, claimedTxnCont);
    }

    /** The detail, with the record count for a merged crc-range-bug span. */
    public String describe() {
        return kind == DamageKind.CRC_RANGE_BUG ? records + " record(s): " + detail : detail;
    }

    @Override
    public String toString() {
        return kind.label() + " @" + offset + "+" + length + " (" + detail + ")";
    }
}
