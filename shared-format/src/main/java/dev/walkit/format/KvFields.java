package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * The decoded fields of one kv_bytes, as positions in the record's buffer: a reusable,
 * mutable holder filled by {@link KvDecoder}. Positions are buffer indexes; offsets named
 * {@code *Offset} are relative to the first byte of kv_bytes, as the header's are.
 */
public final class KvFields {
    int kvStart;
    boolean hasKey;
    int keyStart;
    int keyLength;
    int valueStart;
    int valueLength;
    long createRevision;
    long modRevision;
    /** Offset of the mod_revision varint in kv_bytes, -1 when the field is absent. */
    int modRevOffset;
    int modRevBytes;
    long version;
    long lease;
    String error;

    void clear(int kvStart) {
        this.kvStart = kvStart;
        hasKey = false;
        keyStart = kvStart;
        keyLength = 0;
        valueStart = kvStart;
        valueLength = 0;
        createRevision = 0;
        modRevision = 0;
        modRevOffset = -1;
        modRevBytes = 0;
        version = 0;
        lease = 0;
        error = null;
    }

    boolean fail(String why) {
        error = why;
        return false;
    }

    public boolean hasKey() {
        return hasKey;
    }

    public int keyStart() {
        return keyStart;
    }

    public int keyLength() {
        return keyLength;
    }

    /** Offset of the first key byte in kv_bytes, as key_offset should say. */
    public int keyOffset() {
        return keyStart - kvStart;
    }

    public int valueStart() {
        return valueStart;
    }

    public int valueLength() {
        return valueLength;
    }

    /** Offset of the value bytes in kv_bytes. */
    public int valueOffset() {
        return valueStart - kvStart;
    }

    public long createRevision() {
        return createRevision;
    }

    public long modRevision() {
        return modRevision;
    }

    public int modRevOffset() {
        return modRevOffset;
    }

    public long version() {
        return version;
    }

    public long lease() {
        return lease;
    }

    /** Why the last decode failed, or null. */
    public String error() {
        return error;
    }

    public byte[] key(ByteBuffer buf) {
        return Bytes.copy(buf, keyStart, keyLength);
    }

    public byte[] value(ByteBuffer buf) {
        return Bytes.copy(buf, valueStart, valueLength);
    }
}
