package dev.walkit.format.etcd;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Raft entries applied as etcd applies them; an entry that is no request is counted, never applied in silence. */
class RaftApplyTest {
    static void varint(ByteArrayOutputStream o, long v) {
        while ((v & ~0x7fL) != 0) {
            o.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        o.write((int) v);
    }

    static void bytes(ByteArrayOutputStream o, int field, byte[] b) {
        varint(o, (field << 3) | 2);
        varint(o, b.length);
        o.writeBytes(b);
    }

    /** An InternalRaftRequest holding a PutRequest of {@code key} = {@code value}. */
    static byte[] put(String key, String value) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        bytes(p, 1, key.getBytes(StandardCharsets.UTF_8));
        bytes(p, 2, value.getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        bytes(r, 4, p.toByteArray());
        return r.toByteArray();
    }

    @Test
    void putsAdvanceTheRevisionAndGarbageIsCountedNotApplied() {
        TreeMap<byte[], RaftApply.Kv> live = RaftApply.newState();
        Map<Long, Long> leases = new TreeMap<>();
        RaftApply.Result r = new RaftApply(live, leases, 10).apply(List.of(
                new EtcdWal.Entry(21, 2, 0, put("/a", "1")),
                new EtcdWal.Entry(22, 2, 0, new byte[] {(byte) 0xff, (byte) 0xff, 0x01}), // no protobuf message
                new EtcdWal.Entry(23, 2, 0, new byte[0]), // the leader's empty entry
                new EtcdWal.Entry(24, 2, 0, put("/a", "2"))));
        assertEquals(2, r.revisions.size());
        assertEquals(List.of(22L), r.undecodable);
        RaftApply.Kv a = live.get("/a".getBytes(StandardCharsets.UTF_8));
        assertEquals(11, a.createRevision());
        assertEquals(12, a.modRevision());
        assertEquals(2, a.version());
        assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), a.value());
        assertNull(live.get("/b".getBytes(StandardCharsets.UTF_8)));
    }
}
