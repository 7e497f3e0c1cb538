package dev.walkit.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The canonical v2 encoder (docs/format.md §2-§3): fields in order, the key length as a 4-byte
 * overlong varint (so key_offset = 5), mod_revision as an 8-byte overlong varint, the other
 * fields as shortest varints and only when non-zero / non-empty.
 */
public final class RecordEncoder {
    static final int TAG_KEY = 0x0A;
    private static final int TAG_CREATE_REVISION = 0x10;
    static final int TAG_MOD_REVISION = 0x18;
    private static final int TAG_VERSION = 0x20;
    private static final int TAG_VALUE = 0x2A;
    private static final int TAG_LEASE = 0x30;

    private final CRC32C crc = new CRC32C();

    /** Length of kv_bytes for {@code kv} in canonical form. */
    public static int kvLength(KeyValue kv) {
        return kvLength(kv, kv.value().length);
    }

    /** Length of kv_bytes for {@code kv} with a value of {@code valueLength} bytes in place of its own. */
    static int kvLength(KeyValue kv, int valueLength) {
        return kvLength(kv, kv.version(), valueLength);
    }

    /** Length of kv_bytes for {@code kv} with {@code version} and a value of {@code valueLength} bytes in place of its own. */
    static int kvLength(KeyValue kv, long version, int valueLength) {
        return valueAt(kv, version) + (valueLength != 0 ? 1 + Varints.sizeOf(valueLength) + valueLength : 0)
                + (kv.lease() != 0 ? 1 + Varints.sizeOf(kv.lease()) : 0);
    }

    /** Where in kv_bytes the value field (its tag) starts in canonical form: after the key, create_revision, mod_revision and version. */
    static int valueAt(KeyValue kv, long version) {
        return modRevOffset(kv) + RecordLayout.MOD_REVISION_VARINT_BYTES + (version != 0 ? 1 + Varints.sizeOf(version) : 0);
    }

    /** Offset of the mod_revision varint in kv_bytes in canonical form (the header's mod_rev_offset). */
    static int modRevOffset(KeyValue kv) {
        return 1 + RecordLayout.KEY_LENGTH_VARINT_BYTES + kv.key().length + (kv.createRevision() != 0 ? 1 + Varints.sizeOf(kv.createRevision()) : 0) + 1;
    }

    /** Whole record length for {@code kv}. */
    public static int recordLength(KeyValue kv) {
        return RecordLayout.OVERHEAD + kvLength(kv);
    }

    /** Whole record length for {@code kv} with a value of {@code valueLength} bytes in place of its own. */
    public static int recordLength(KeyValue kv, int valueLength) {
        return RecordLayout.OVERHEAD + kvLength(kv, valueLength);
    }

    /** Encodes {@code kv} as one record. */
    public byte[] encode(KeyValue kv) {
        byte[] out = new byte[recordLength(kv)];
        encode(kv, ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN), 0);
        return out;
    }

    /**
     * Encodes {@code kv} at {@code index} of {@code buf} (little-endian, with room for
     * {@link #recordLength}); returns the record length.
     */
    public int encode(KeyValue kv, ByteBuffer buf, int index) {
        byte[] key = kv.key();
        if ((kv.flags() & Flags.RESERVED_MASK) != 0) throw new IllegalArgumentException("reserved flag bits set: " + kv.flags());
        int kvLen = kvLength(kv);
        int kvStart = index + RecordLayout.KV_OFFSET;
        int i = kvStart;
        buf.put(i++, (byte) TAG_KEY);
        Varints.putOverlong4(buf, i, key.length);
        i += RecordLayout.KEY_LENGTH_VARINT_BYTES;
        buf.put(i, key);
        i += key.length;
        if (kv.createRevision() != 0) {
            buf.put(i++, (byte) TAG_CREATE_REVISION);
            i = Varints.putVarint(buf, i, kv.createRevision());
        }
        buf.put(i++, (byte) TAG_MOD_REVISION);
        int modRevOffset = i - kvStart;
        if (modRevOffset > 0xFFFF) throw new IllegalArgumentException("key too long: mod_rev_offset " + modRevOffset + " does not fit u16");
        Varints.putOverlong8(buf, i, kv.modRevision());
        i += RecordLayout.MOD_REVISION_VARINT_BYTES;
        if (kv.version() != 0) {
            buf.put(i++, (byte) TAG_VERSION);
            i = Varints.putVarint(buf, i, kv.version());
        }
        if (kv.value().length != 0) {
            buf.put(i++, (byte) TAG_VALUE);
            i = Varints.putVarint(buf, i, kv.value().length);
            buf.put(i, kv.value());
            i += kv.value().length;
        }
        if (kv.lease() != 0) {
            buf.put(i++, (byte) TAG_LEASE);
            i = Varints.putVarint(buf, i, kv.lease());
        }
        if (i - kvStart != kvLen) throw new IllegalStateException("encoder length mismatch");
        buf.put(index + RecordLayout.FLAGS_OFFSET, (byte) kv.flags());
        buf.putShort(index + RecordLayout.KEY_OFFSET_OFFSET, (short) RecordLayout.CANONICAL_KEY_OFFSET);
        buf.putShort(index + RecordLayout.MOD_REV_OFFSET_OFFSET, (short) modRevOffset);
        buf.putInt(index + RecordLayout.REC_LEN_OFFSET, kvLen);
        writeCrc(buf, index, kvLen, CrcRange.STANDARD);
        return RecordLayout.OVERHEAD + kvLen;
    }

    /** (Re)writes the CRC of the record at {@code index} over {@code range}: STANDARD repairs a buggy one. */
    public void writeCrc(ByteBuffer buf, int index, int recLen, CrcRange range) {
        int c = range.compute(crc, buf.duplicate(), index, recLen);
        buf.putInt(index + RecordLayout.crcOffset(recLen), c);
    }

    /** A snapshot marker (§6): empty key, mod_revision = the compact revision, value = count as u64. */
    public static KeyValue snapshotMarker(long compactRevision, long count) {
        byte[] v = new byte[8];
        ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).putLong(count);
        return new KeyValue(Flags.SNAPSHOT, new byte[0], 0, compactRevision, 0, v, 0);
    }
}
