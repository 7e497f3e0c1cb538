package dev.walkit.format;

/**
 * Byte layout of a format v2 record (docs/format.md §2). All integers little-endian.
 *
 * <pre>
 * offset   size  field
 * 0        1     flags            see {@link Flags}
 * 1        2     key_offset       u16  offset of the first key byte inside kv_bytes
 * 3        2     mod_rev_offset   u16  offset of the 8-byte mod_revision varint inside kv_bytes
 * 5        4     rec_len          u32  N = length of kv_bytes
 * 9        N     kv_bytes         a serialized mvccpb.KeyValue
 * 9+N      4     crc              u32  CRC-32C over bytes [0, 9+N): header and kv_bytes
 * </pre>
 *
 * A record is {@code 13 + N} bytes; the next record starts right after the CRC.
 */
public final class RecordLayout {
    public static final int FLAGS_OFFSET = 0;
    public static final int FLAGS_LENGTH = 1;
    public static final int KEY_OFFSET_OFFSET = FLAGS_OFFSET + FLAGS_LENGTH;
    public static final int KEY_OFFSET_LENGTH = 2;
    public static final int MOD_REV_OFFSET_OFFSET = KEY_OFFSET_OFFSET + KEY_OFFSET_LENGTH;
    public static final int MOD_REV_OFFSET_LENGTH = 2;
    public static final int REC_LEN_OFFSET = MOD_REV_OFFSET_OFFSET + MOD_REV_OFFSET_LENGTH;
    public static final int REC_LEN_LENGTH = 4;
    /** 9: the header, everything before kv_bytes. */
    public static final int HEADER_LENGTH = REC_LEN_OFFSET + REC_LEN_LENGTH;
    public static final int KV_OFFSET = HEADER_LENGTH;
    public static final int CRC_LENGTH = 4;
    /** 13: header plus CRC; a record is {@code OVERHEAD + rec_len} bytes. */
    public static final int OVERHEAD = HEADER_LENGTH + CRC_LENGTH;

    /** Default upper bound on rec_len (§3): larger values are a bad header and are never allocated. */
    public static final int DEFAULT_MAX_REC_LEN = 64 << 20;

    /** Canonical writers put the key length in a 4-byte overlong varint after tag 0x0A: key_offset = 5. */
    public static final int CANONICAL_KEY_OFFSET = 5;
    public static final int KEY_LENGTH_VARINT_BYTES = 4;
    public static final int MOD_REVISION_VARINT_BYTES = 8;

    private RecordLayout() {
    }

    /** Offset of the CRC of a record whose kv_bytes are {@code recLen} long. */
    public static int crcOffset(int recLen) {
        return KV_OFFSET + recLen;
    }

    /** Whole length of a record whose kv_bytes are {@code recLen} long. */
    public static long recordLength(long recLen) {
        return OVERHEAD + recLen;
    }
}
