package dev.walkit.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A record as a replay by the rules reads it (a {@link RecordView}), made from its fields: for a store's WAL form
 * replayed as it is made (FormReplay), with no file and no value. What the light replay reads from the buffer, the
 * header, the key and the mod_revision, is written where the canonical encoder writes it ({@link RecordEncoder});
 * the other fields are given to the view as decoded, not encoded to be decoded again. rec_len, and every offset the
 * view gives, are those of the canonical record with its value, so findings name the WAL form's offsets. The view is
 * valid until the next {@link #stage}.
 */
public final class StagedRecord {
    /**
     * On the heap, not direct: the key is looked up in the replay's table both from here and from the key's own array
     * (wrapped), and one kind of buffer keeps that lookup's compiled code to one (kine's 1 M rows: 0.09 s less, a
     * smaller compile).
     */
    private ByteBuffer buf = ByteBuffer.allocate(1 << 12).order(ByteOrder.LITTLE_ENDIAN);
    private final RecordView view = new RecordView();

    /** {@code kv} with a value of {@code valueLength} bytes (its own are not read), at {@code fileOffset} of the form. */
    public RecordView stage(KeyValue kv, int valueLength, long fileOffset) {
        return stage(kv, kv.version(), valueLength, fileOffset);
    }

    /** {@link #stage(KeyValue, int, long)} with {@code version} in place of {@code kv}'s (a version counted by the replay). */
    public RecordView stage(KeyValue kv, long version, int valueLength, long fileOffset) {
        byte[] key = kv.key();
        int modRevOffset = RecordEncoder.modRevOffset(kv);
        int kvStart = RecordLayout.KV_OFFSET;
        int need = kvStart + modRevOffset + RecordLayout.MOD_REVISION_VARINT_BYTES;
        if (buf.capacity() < need) buf = ByteBuffer.allocate(Math.max(need, buf.capacity() * 2)).order(ByteOrder.LITTLE_ENDIAN);
        int keyStart = kvStart + 1 + RecordLayout.KEY_LENGTH_VARINT_BYTES;
        buf.put(kvStart, (byte) RecordEncoder.TAG_KEY);
        Varints.putOverlong4(buf, kvStart + 1, key.length);
        buf.put(keyStart, key);
        buf.put(kvStart + modRevOffset - 1, (byte) RecordEncoder.TAG_MOD_REVISION);
        Varints.putOverlong8(buf, kvStart + modRevOffset, kv.modRevision());
        int kvLen = RecordEncoder.kvLength(kv, version, valueLength);
        buf.put(RecordLayout.FLAGS_OFFSET, (byte) kv.flags());
        buf.putShort(RecordLayout.KEY_OFFSET_OFFSET, (short) RecordLayout.CANONICAL_KEY_OFFSET);
        buf.putShort(RecordLayout.MOD_REV_OFFSET_OFFSET, (short) modRevOffset);
        buf.putInt(RecordLayout.REC_LEN_OFFSET, kvLen);

        view.wrap(buf, 0, fileOffset);
        KvFields f = view.fieldsHolder();
        f.clear(kvStart);
        f.hasKey = true;
        f.keyStart = keyStart;
        f.keyLength = key.length;
        f.createRevision = kv.createRevision();
        f.modRevision = kv.modRevision();
        f.modRevOffset = modRevOffset;
        f.modRevBytes = RecordLayout.MOD_REVISION_VARINT_BYTES;
        f.version = version;
        f.lease = kv.lease();
        f.valueLength = valueLength;
        // As the decoder gives it: where the value's bytes are, or kv_bytes' start without a value.
        if (valueLength != 0) f.valueStart = kvStart + RecordEncoder.valueAt(kv, version) + 1 + Varints.sizeOf(valueLength);
        view.markDecoded();
        return view;
    }
}
