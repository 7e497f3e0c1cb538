package dev.walkit.format;

/**
 * A valid record's header facts and fields, copied out of the mapped file so that it can outlive a
 * read: what transaction grouping and replay work on, in either format. The value is not copied:
 * {@code valueOffset}/{@code valueLength} say where to read it back.
 *
 * @param offset         file offset of the record
 * @param length         bytes of the record
 * @param flags          v2 flags (v1: DELETE only)
 * @param revision       mod_revision: the revision of its transaction
 * @param key            the key bytes
 * @param createRevision create_revision as stored (v1: 0, derived by replay)
 * @param version        version as stored (v1: 0, derived by replay)
 * @param lease          lease ID, 0 for none
 * @param valueOffset    file offset of the value bytes
 * @param valueLength    length of the value
 * @param crcRange       the range the stored CRC matched (STANDARD unless a buggy range was accepted)
 */
public record WalEntry(long offset, long length, int flags, long revision, byte[] key, long createRevision, long version,
                       long lease, long valueOffset, int valueLength, CrcRange crcRange) implements LogItem {

    public boolean isDelete() {
        return Flags.isDelete(flags);
    }

    public boolean isTxnCont() {
        return Flags.isTxnCont(flags);
    }

    public boolean isSnapshot() {
        return Flags.isSnapshot(flags);
    }

    /** Copies the facts of a decoded v2 record. */
    public static WalEntry of(RecordView v) {
        KvFields f = v.fields();
        return new WalEntry(v.offset(), v.length(), v.flags(), f.modRevision(), f.key(v.buffer()), f.createRevision(),
                f.version(), f.lease(), v.valueFileOffset(), f.valueLength(), v.crcRange());
    }
}
