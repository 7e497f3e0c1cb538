package dev.walkit.format;

import java.nio.ByteBuffer;

/**
 * Whether a stored Kubernetes value still is what the apiserver wrote, where no checksum of the store covers it
 * (bbolt and SQLite keep none; a WAL record's CRC covers what the writer had in memory): a value under
 * {@code /registry/} is either the protobuf envelope ({@code k8s\0}, then a runtime.Unknown: typeMeta 1 {apiVersion
 * 1, kind 2}, raw 2, contentEncoding 3, contentType 4, each length-delimited, nothing else) whose raw object is a
 * well-formed protobuf message (every tag a field number above 0 with a wire type protobuf has, every length within
 * it) with its field 1, the ObjectMeta, well-formed too; or JSON that parses whole (a custom resource's, kine's);
 * and in neither a sector-sized run of zero bytes (512: a block that never reached the disk). Other keys and other
 * values (an empty one, a lease's, a flag) are not judged. What cannot be told: a changed byte inside a string.
 */
public final class ValueCheck {
    private static final byte[] REGISTRY = "/registry/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] K8S = {'k', '8', 's', 0};
    /** A run of this many zero bytes is a block that was lost, not a value the apiserver wrote. */
    static final int ZERO_RUN = 512;

    private ValueCheck() {
    }

    /** What is wrong with {@code value} stored under {@code key}, or null: not wrong, or not judged. */
    public static String check(byte[] key, byte[] value) {
        if (value.length == 0 || key.length < REGISTRY.length || !java.util.Arrays.equals(key, 0, REGISTRY.length, REGISTRY, 0, REGISTRY.length)) {
            return null;
        }
        int zeros = zeroRun(value);
        boolean k8s = value.length >= K8S.length && java.util.Arrays.equals(value, 0, K8S.length, K8S, 0, K8S.length);
        boolean json = firstNonSpace(value) == '{';
        if (!k8s && !json) return zeros >= 0 ? "a run of " + ZERO_RUN + "+ zero bytes at byte " + zeros + " of the value (a lost block)" : null;
        String why = k8s ? envelope(ByteBuffer.wrap(value), K8S.length, value.length) : json(value);
        if (why == null && zeros >= 0) why = "a run of " + ZERO_RUN + "+ zero bytes at byte " + zeros + " of the value (a lost block)";
        return why;
    }

    /**
     * Where the first run of {@link #ZERO_RUN} zero bytes starts, or -1. Such a run holds a byte at a multiple of half
     * its length, so only those bytes are looked at first (1 in 256), and the run around a zero one measured.
     */
    static int zeroRun(byte[] v) {
        int half = ZERO_RUN / 2;
        for (int i = half - 1; i < v.length; i += half) {
            if (v[i] != 0) continue;
            int from = i;
            while (from > 0 && v[from - 1] == 0 && i - from < ZERO_RUN) from--;
            int to = i;
            while (to + 1 < v.length && v[to + 1] == 0 && to - from + 1 < ZERO_RUN) to++;
            if (to - from + 1 >= ZERO_RUN) return from;
        }
        return -1;
    }

    private static int firstNonSpace(byte[] v) {
        for (byte b : v) if (b != ' ' && b != '\n' && b != '\r' && b != '\t') return b;
        return -1;
    }

    private static String json(byte[] value) {
        String why = JsonSyntax.check(value, 0, value.length);
        return why == null ? null : "JSON that does not parse (" + why + ")";
    }

    /** The runtime.Unknown envelope at [at, end); null when well-formed. */
    private static String envelope(ByteBuffer b, int at, int end) {
        boolean raw = false;
        int i = at;
        while (i < end) {
            long[] t = ProtoWire.varint(b, i, end);
            if (t == null) return "the k8s envelope's field at byte " + i + " does not decode";
            int field = (int) (t[0] >>> 3);
            int wire = (int) (t[0] & 7);
            i = (int) t[1];
            if (wire != 2 || field < 1 || field > 4) return "the k8s envelope holds field " + field + " (wire type " + wire + ") at byte " + (i - 1) + ": not a runtime.Unknown";
            long[] n = ProtoWire.varint(b, i, end);
            if (n == null || n[1] + n[0] > end) return "the k8s envelope's field " + field + " runs past the value";
            int from = (int) n[1];
            int to = (int) (n[1] + n[0]);
            if (field == 1) {
                String why = message(b, from, to);
                if (why != null) return "its typeMeta: " + why;
            } else if (field == 2) {
                raw = true;
                String why = message(b, from, to);
                if (why != null) return "its object: " + why;
                String meta = metadata(b, from, to);
                if (meta != null) return "its ObjectMeta: " + meta;
            }
            i = to;
        }
        return raw ? null : "the k8s envelope holds no object (raw)";
    }

    /** The object's field 1 (ObjectMeta), when there, as a well-formed message itself. */
    private static String metadata(ByteBuffer b, int at, int end) {
        int i = at;
        while (i < end) {
            long[] t = ProtoWire.varint(b, i, end);
            if (t == null) return null; // the object's own check says so
            int field = (int) (t[0] >>> 3);
            int wire = (int) (t[0] & 7);
            i = (int) t[1];
            int next = ProtoWire.skip(b, i, end, wire);
            if (next < 0) return null;
            if (field == 1 && wire == 2) {
                long[] n = ProtoWire.varint(b, i, end);
                return message(b, (int) n[1], (int) (n[1] + n[0]));
            }
            i = next;
        }
        return null;
    }

    /**
     * A protobuf message's framing at [at, end): every tag a field above 0 and a wire type protobuf has (0, 1, 2,
     * 5), every length within the message, ending exactly at {@code end}; null when so.
     */
    private static String message(ByteBuffer b, int at, int end) {
        int i = at;
        while (i < end) {
            long[] t = ProtoWire.varint(b, i, end);
            if (t == null) return "a tag at byte " + i + " runs off its message";
            int field = (int) (t[0] >>> 3);
            int wire = (int) (t[0] & 7);
            if (field == 0) return "field number 0 at byte " + i + " (a tag protobuf never writes)";
            if (wire == 3 || wire == 4 || wire > 5) return "wire type " + wire + " at byte " + i;
            i = ProtoWire.skip(b, (int) t[1], end, wire);
            if (i < 0) return "field " + field + " at byte " + t[1] + " runs past its message";
        }
        return null;
    }
}
