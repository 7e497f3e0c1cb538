package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * A view of one v2 record inside a mapped buffer ({@link RecordLayout} has the byte diagram). No
 * bytes are copied: fields are read on demand from the buffer. The reader reuses one instance, so a
 * view is valid until the reader's next step; copy out what must outlive it ({@link #toKeyValue()}).
 */
public final class RecordView implements ReadResult {
    private final long[] scratch = new long[1];
    private ByteBuffer buf;
    private int index;
    private long fileOffset;
    private CrcRange crcRange = CrcRange.STANDARD;
    private final KvFields fields = new KvFields();
    private boolean decoded;

    /** Points this view at the record starting at {@code index} of {@code buf} (file offset {@code fileOffset}). */
    public RecordView wrap(ByteBuffer buf, int index, long fileOffset) {
        this.buf = buf;
        this.index = index;
        this.fileOffset = fileOffset;
        this.crcRange = CrcRange.STANDARD;
        this.decoded = false;
        return this;
    }

    void crcRange(CrcRange range) {
        this.crcRange = range;
    }

    void markDecoded() {
        this.decoded = true;
    }

    public ByteBuffer buffer() {
        return buf;
    }

    /** Index of the record's first byte in {@link #buffer()}. */
    public int index() {
        return index;
    }

    @Override
    public long offset() {
        return fileOffset;
    }

    @Override
    public long length() {
        return RecordLayout.recordLength(recLen());
    }

    public int flags() {
        return buf.get(index + RecordLayout.FLAGS_OFFSET) & 0xFF;
    }

    public boolean isDelete() {
        return Flags.isDelete(flags());
    }

    public boolean isTxnCont() {
        return Flags.isTxnCont(flags());
    }

    public boolean isSnapshot() {
        return Flags.isSnapshot(flags());
    }

    /** key_offset header field. */
    public int keyOffset() {
        return buf.getShort(index + RecordLayout.KEY_OFFSET_OFFSET) & 0xFFFF;
    }

    /** mod_rev_offset header field. */
    public int modRevOffset() {
        return buf.getShort(index + RecordLayout.MOD_REV_OFFSET_OFFSET) & 0xFFFF;
    }

    /** rec_len: the length N of kv_bytes. */
    public int recLen() {
        return buf.getInt(index + RecordLayout.REC_LEN_OFFSET);
    }

    /** Buffer index of the first byte of kv_bytes. */
    public int kvStart() {
        return index + RecordLayout.KV_OFFSET;
    }

    public int storedCrc() {
        return buf.getInt(index + RecordLayout.crcOffset(recLen()));
    }

    /** The range the stored CRC matched: {@link CrcRange#STANDARD} unless a buggy range was accepted. */
    public CrcRange crcRange() {
        return crcRange;
    }

    /**
     * The revision, read through the header: the varint at mod_rev_offset, by mask-and-shift when it
     * has the canonical 8-byte form. The reader checked that mod_rev_offset is in range.
     */
    public long revision() {
        int at = kvStart() + modRevOffset();
        int limit = kvStart() + recLen();
        if (limit - at >= RecordLayout.MOD_REVISION_VARINT_BYTES && Varints.isOverlong8(buf, at)) {
            return Varints.decodeOverlong8(buf, at);
        }
        return Varints.readVarint(buf, at, limit, scratch) < 0 ? -1 : scratch[0];
    }

    /** Decoded fields; decodes on first use when the reader ran at frame level. */
    public KvFields fields() {
        if (!decoded) {
            new KvDecoder().decode(buf, kvStart(), recLen(), fields);
            decoded = true;
        }
        return fields;
    }

    KvFields fieldsHolder() {
        return fields;
    }

    public byte[] key() {
        return fields().key(buf);
    }

    public byte[] value() {
        return fields().value(buf);
    }

    /** File offset of the value bytes (to read a value back later instead of keeping it). */
    public long valueFileOffset() {
        return fileOffset + (fields().valueStart() - index);
    }

    /** A copy of this record's fields that outlives the view. */
    public KeyValue toKeyValue() {
        return toKeyValue(true);
    }

    /** The record's fields as values; without {@code value} its value is left out (empty, not copied: a keys-only read). */
    public KeyValue toKeyValue(boolean value) {
        KvFields f = fields();
        return new KeyValue(flags(), f.key(buf), f.createRevision(), f.modRevision(), f.version(), value ? f.value(buf) : new byte[0], f.lease());
    }

    @Override
    public String toString() {
        return "record @" + fileOffset + "+" + length() + " flags=" + Flags.describe(flags()) + " rev=" + revision();
    }
}
