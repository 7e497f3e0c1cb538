package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * Zero-copy decoder of kv_bytes (an mvccpb.KeyValue, docs/format.md §3) for any valid protobuf
 * encoding: fields in any order, repeated scalars (last wins), unknown fields and groups skipped,
 * a known field number with another wire type treated as unknown, as protobuf-java does. It
 * records where the key bytes and the mod_revision varint are, so that the header's offsets can
 * be checked against them. protobuf-java's generated parser is the oracle in the tests.
 *
 * <p>Results are written into a reusable {@link KvFields}; nothing is allocated per record.
 */
public final class KvDecoder {
    private static final int MAX_GROUP_DEPTH = 100;
    private final long[] scratch = new long[1];

    /**
     * Decodes {@code length} bytes at {@code start} of {@code buf} into {@code out}. Returns false
     * when they are not a valid KeyValue ({@code out.error} says why).
     */
    public boolean decode(ByteBuffer buf, int start, int length, KvFields out) {
        out.clear(start);
        final int limit = start + length;
        int i = start;
        long[] v = scratch;
        while (i < limit) {
            int tagAt = i;
            i = Varints.readVarint(buf, i, limit, v);
            if (i < 0) return out.fail("malformed tag varint at kv+" + (tagAt - start));
            long tag = v[0];
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            if (field == 0 || tag > 0xFFFF_FFFFL) return out.fail("invalid tag " + tag + " at kv+" + (tagAt - start));
            if (wire == 0) {
                int at = i;
                i = Varints.readVarint(buf, i, limit, v);
                if (i < 0) return out.fail("malformed varint of field " + field + " at kv+" + (at - start));
                switch (field) {
                    case 2 -> out.createRevision = v[0];
                    case 3 -> {
                        out.modRevision = v[0];
                        out.modRevOffset = at - start;
                        out.modRevBytes = i - at;
                    }
                    case 4 -> out.version = v[0];
                    case 6 -> out.lease = v[0];
                    default -> { }
                }
            } else if (wire == 2) {
                int at = i;
                i = Varints.readVarint(buf, i, limit, v);
                if (i < 0) return out.fail("malformed length of field " + field + " at kv+" + (at - start));
                long len = v[0];
                if (len < 0 || len > limit - i) return out.fail("length " + len + " of field " + field + " runs past kv_bytes");
                if (field == 1) {
                    out.keyStart = i;
                    out.keyLength = (int) len;
                    out.hasKey = true;
                } else if (field == 5) {
                    out.valueStart = i;
                    out.valueLength = (int) len;
                }
                i += (int) len;
            } else if (wire == 1) {
                if (limit - i < 8) return out.fail("fixed64 of field " + field + " runs past kv_bytes");
                i += 8;
            } else if (wire == 5) {
                if (limit - i < 4) return out.fail("fixed32 of field " + field + " runs past kv_bytes");
                i += 4;
            } else if (wire == 3) {
                i = skipGroup(buf, i, limit, field, 1);
                if (i < 0) return out.fail("unterminated group of field " + field);
            } else {
                return out.fail("unexpected wire type " + wire + " of field " + field + " at kv+" + (tagAt - start));
            }
        }
        return true;
    }

    private int skipGroup(ByteBuffer buf, int i, int limit, int groupField, int depth) {
        if (depth > MAX_GROUP_DEPTH) return -1;
        long[] v = scratch;
        while (i < limit) {
            i = Varints.readVarint(buf, i, limit, v);
            if (i < 0) return -1;
            long tag = v[0];
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            if (field == 0 || tag > 0xFFFF_FFFFL) return -1;
            switch (wire) {
                case 0 -> i = Varints.readVarint(buf, i, limit, v);
                case 1 -> i = limit - i < 8 ? -1 : i + 8;
                case 5 -> i = limit - i < 4 ? -1 : i + 4;
                case 2 -> {
                    i = Varints.readVarint(buf, i, limit, v);
                    if (i >= 0) i = (v[0] < 0 || v[0] > limit - i) ? -1 : i + (int) v[0];
                }
                case 3 -> i = skipGroup(buf, i, limit, field, depth + 1);
                case 4 -> {
                    return field == groupField ? i : -1;
                }
                default -> i = -1;
            }
            if (i < 0) return -1;
        }
        return -1;
    }
}
