package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * Protobuf's wire format, read by field number with no schema: a tag (field number and wire type) as a varint, then a
 * varint (0), 8 bytes (1), a length and that many bytes (2) or 4 bytes (5). What the readers of messages other than
 * KeyValue share (etcd's WAL records, raft entries and requests, a Kubernetes value's envelope).
 */
public final class ProtoWire {
    private ProtoWire() {
    }

    /** {value, the index after it} of the varint at {@code at}, or null when it runs past {@code end}. */
    public static long[] varint(ByteBuffer b, int at, int end) {
        long[] v = new long[1];
        int next = Varints.readVarint(b, at, end, v);
        return next == Varints.MALFORMED ? null : new long[] {v[0], next};
    }

    /** Past the value of wire type {@code wire} at {@code at}; -1 when it runs past {@code end} or is no wire type (3, 4, 6, 7). */
    public static int skip(ByteBuffer b, int at, int end, int wire) {
        switch (wire) {
            case 0 -> {
                long[] v = varint(b, at, end);
                return v == null ? -1 : (int) v[1];
            }
            case 1 -> {
                return at + 8 <= end ? at + 8 : -1;
            }
            case 5 -> {
                return at + 4 <= end ? at + 4 : -1;
            }
            case 2 -> {
                long[] n = varint(b, at, end);
                return n == null || n[0] < 0 || n[1] + n[0] > end ? -1 : (int) (n[1] + n[0]);
            }
            default -> {
                return -1;
            }
        }
    }
}
