package dev.walkit.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Which bytes of a record a CRC covers. {@link #STANDARD} is the format's (docs/format.md §2); the
 * other two are the ranges of the field's "crc range bug" writers (§7), kept as verification
 * variants so that such a log can be recognised, and recovered with {@code --accept-crc}.
 */
public enum CrcRange {
    /** Bytes [0, 9+N): header and kv_bytes. */
    STANDARD("standard", 0),
    /** kv_bytes only: bytes [9, 9+N). */
    PAYLOAD_ONLY("payload-only", RecordLayout.KV_OFFSET),
    /** Bytes [1, 9+N): everything but the flags byte. */
    SKIP_FLAGS("skip-flags", RecordLayout.KEY_OFFSET_OFFSET);

    private final String label;
    private final int start;

    CrcRange(String label, int start) {
        this.label = label;
        this.start = start;
    }

    /** The spec's name, as used on the command line and in JSON. */
    public String label() {
        return label;
    }

    /** First covered byte, relative to the record start. The range always ends at the CRC. */
    public int start() {
        return start;
    }

    /**
     * CRC-32C of this range of the record at {@code index} of {@code buf} with kv_bytes of
     * {@code recLen}. {@code scratch} is a reusable view of the same memory (its position and limit
     * are overwritten); {@code crc} is reset first.
     */
    public int compute(CRC32C crc, ByteBuffer scratch, int index, int recLen) {
        crc.reset();
        int end = index + RecordLayout.KV_OFFSET + recLen;
        scratch.limit(end).position(index + start);
        crc.update(scratch);
        return (int) crc.getValue();
    }

    public static CrcRange fromLabel(String label) {
        for (CrcRange r : values()) {
            if (r.label.equals(label)) return r;
        }
        throw new IllegalArgumentException("unknown CRC range '" + label + "' (payload-only, skip-flags)");
    }
}
