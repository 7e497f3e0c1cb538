package dev.walkit.format.etcd;

import dev.walkit.format.replay.KeyIndex;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The raft entries etcd has acknowledged but not yet applied to its db (past its consistent index), applied as
 * etcd's apply does at its next start (etcd 3.4's apply.go and mvcc): each entry's etcdserverpb.InternalRaftRequest
 * (put 4, delete_range 5, txn 6, compaction 7, lease_grant 8, lease_revoke 9; a v2 request 2, reads, alarms, lease
 * checkpoints and auth change no key) to the keys as the db left them. A write advances the revision by one, its keys
 * at sub-revisions in order; a delete that deletes nothing, a put refused (ignore_value on an absent key) and a txn
 * that writes nothing leave it. A lease revoked deletes its keys. The messages are read by their field numbers (the
 * protos of etcd's rpc.proto and raft_internal.proto), as everything here reads the formats it meets.
 */
final class RaftApply {
    /** A live key as etcd keeps it. */
    record Kv(byte[] key, long createRevision, long modRevision, long version, long lease, byte[] value) {
    }

    /** One write: a put ({@code kv}) or a delete of {@code key}. */
    record Write(byte[] key, Kv kv) {
    }

    /** What applying the entries did: the writes, one list a revision; the leases granted (ID → TTL) and revoked. */
    static final class Result {
        final List<List<Write>> revisions = new ArrayList<>();
        final Map<Long, Long> granted = new java.util.LinkedHashMap<>();
        final List<Long> revoked = new ArrayList<>();
        /** The indexes of entries whose data is no request this reads: the view may differ from what etcd serves. */
        final List<Long> undecodable = new ArrayList<>();
    }

    private final NavigableMap<byte[], Kv> live;
    private final Map<Long, Long> leases;
    private long revision;
    private final Result result = new Result();
    /** The writes of the revision being made, and its sub-revision. */
    private List<Write> writes;

    RaftApply(NavigableMap<byte[], Kv> live, Map<Long, Long> leases, long revision) {
        this.live = live;
        this.leases = leases;
        this.revision = revision;
    }

    static TreeMap<byte[], Kv> newState() {
        return new TreeMap<>(KeyIndex.KEY_ORDER);
    }

    Result apply(List<EtcdWal.Entry> entries) {
        for (EtcdWal.Entry e : entries) {
            if (e.type() != 0 || e.data().length == 0) continue; // a membership change, or the leader's empty entry
            Msg m = Msg.of(e.data());
            if (m == null) {
                result.undecodable.add(e.index());
                continue;
            }
            if (m.has(2)) continue; // a v2 request (etcd 3.4 publishes its members' attributes so): no v3 key changes
            writes = new ArrayList<>();
            try {
                request(m);
            } catch (RuntimeException notARequest) { // a part that does not decode: the entry is not applied
                result.undecodable.add(e.index());
                writes.clear();
            }
            if (!writes.isEmpty()) {
                result.revisions.add(writes);
                revision++;
            }
        }
        return result;
    }

    private void request(Msg m) {
        {
            if (m.has(4)) put(Msg.of(m.bytes(4)));
            else if (m.has(5)) deleteRange(Msg.of(m.bytes(5)));
            else if (m.has(6)) txn(Msg.of(m.bytes(6)));
            else if (m.has(8)) {
                Msg g = Msg.of(m.bytes(8)); // LeaseGrantRequest: TTL 1, ID 2
                leases.put(g.varint(2), g.varint(1));
                result.granted.put(g.varint(2), g.varint(1));
            } else if (m.has(9)) {
                long id = Msg.of(m.bytes(9)).varint(1); // LeaseRevokeRequest: ID 1
                leases.remove(id);
                result.revoked.add(id);
                List<byte[]> keys = new ArrayList<>();
                for (Kv kv : live.values()) if (kv.lease() == id) keys.add(kv.key());
                for (byte[] k : keys) delete(k);
            }
        }
    }

    /** PutRequest: key 1, value 2, lease 3, prev_kv 4, ignore_value 5, ignore_lease 6. False when etcd refuses it. */
    private boolean put(Msg p) {
        byte[] key = p.bytes(1);
        Kv old = live.get(key);
        boolean ignoreValue = p.varint(5) != 0;
        boolean ignoreLease = p.varint(6) != 0;
        if ((ignoreValue || ignoreLease) && old == null) return false; // ErrKeyNotFound: nothing written
        long rev = revision + 1;
        byte[] value = ignoreValue ? old.value() : p.bytes(2);
        long lease = ignoreLease ? old.lease() : p.varint(3);
        Kv kv = new Kv(key, old == null ? rev : old.createRevision(), rev, old == null ? 1 : old.version() + 1, lease, value == null ? new byte[0] : value);
        live.put(key, kv);
        writes.add(new Write(key, kv));
        return true;
    }

    /** DeleteRangeRequest: key 1, range_end 2. */
    private void deleteRange(Msg d) {
        for (byte[] k : keys(d.bytes(1), d.bytes(2))) delete(k);
    }

    private void delete(byte[] key) {
        if (live.remove(key) != null) writes.add(new Write(key, null));
    }

    /** The live keys of [key, rangeEnd) as etcd reads a range: no range_end one key; "\0" every key from key on. */
    private List<byte[]> keys(byte[] key, byte[] rangeEnd) {
        if (key == null) key = new byte[0];
        if (rangeEnd == null || rangeEnd.length == 0) return live.containsKey(key) ? List.of(key) : List.of();
        NavigableMap<byte[], Kv> sub = rangeEnd.length == 1 && rangeEnd[0] == 0 ? live.tailMap(key, true) : live.subMap(key, true, rangeEnd, false);
        return new ArrayList<>(sub.keySet());
    }

    /** TxnRequest: compare 1, success 2, failure 3 (each op a RequestOp: range 1, put 2, delete_range 3, txn 4). */
    private void txn(Msg t) {
        boolean ok = true;
        for (byte[] c : t.all(1)) ok &= compare(Msg.of(c));
        for (byte[] op : t.all(ok ? 2 : 3)) {
            Msg o = Msg.of(op);
            if (o.has(2)) put(Msg.of(o.bytes(2)));
            else if (o.has(3)) deleteRange(Msg.of(o.bytes(3)));
            else if (o.has(4)) txn(Msg.of(o.bytes(4)));
        }
    }

    /**
     * Compare: result 1 (EQUAL 0, GREATER 1, LESS 2, NOT_EQUAL 3), target 2 (VERSION 0, CREATE 1, MOD 2, VALUE 3,
     * LEASE 4), key 3, then the target's value: version 4, create_revision 5, mod_revision 6, value 7, lease 8;
     * range_end 64. Every key of the range must hold; an absent key compares as zeros, but never on its value.
     */
    private boolean compare(Msg c) {
        int result = (int) c.varint(1);
        int target = (int) c.varint(2);
        List<byte[]> keys = keys(c.bytes(3), c.bytes(64));
        if (keys.isEmpty()) {
            if (target == 3) return false;
            return holds(result, compareTo(target, null, c));
        }
        for (byte[] k : keys) if (!holds(result, compareTo(target, live.get(k), c))) return false;
        return true;
    }

    private static int compareTo(int target, Kv kv, Msg c) {
        return switch (target) {
            case 0 -> Long.compare(kv == null ? 0 : kv.version(), c.varint(4));
            case 1 -> Long.compare(kv == null ? 0 : kv.createRevision(), c.varint(5));
            case 2 -> Long.compare(kv == null ? 0 : kv.modRevision(), c.varint(6));
            case 3 -> Arrays.compareUnsigned(kv == null ? new byte[0] : kv.value(), c.bytes(7) == null ? new byte[0] : c.bytes(7));
            case 4 -> Long.compare(kv == null ? 0 : kv.lease(), c.varint(8));
            default -> Integer.MIN_VALUE;
        };
    }

    private static boolean holds(int result, int cmp) {
        if (cmp == Integer.MIN_VALUE) return false;
        return switch (result) {
            case 0 -> cmp == 0;
            case 1 -> cmp > 0;
            case 2 -> cmp < 0;
            case 3 -> cmp != 0;
            default -> false;
        };
    }

    /** A protobuf message's fields by number: varints, and length-delimited bytes (every occurrence kept). */
    static final class Msg {
        private final Map<Integer, List<Object>> fields = new java.util.HashMap<>();

        static Msg of(byte[] b) {
            Msg m = new Msg();
            if (b == null) return m;
            ByteBuffer buf = ByteBuffer.wrap(b);
            int i = 0;
            while (i < b.length) {
                long[] t = dev.walkit.format.ProtoWire.varint(buf, i, b.length);
                if (t == null) return null;
                i = (int) t[1];
                int field = (int) (t[0] >>> 3);
                switch ((int) (t[0] & 7)) {
                    case 0 -> {
                        long[] v = dev.walkit.format.ProtoWire.varint(buf, i, b.length);
                        if (v == null) return null;
                        i = (int) v[1];
                        m.fields.computeIfAbsent(field, f -> new ArrayList<>()).add(v[0]);
                    }
                    case 2 -> {
                        long[] n = dev.walkit.format.ProtoWire.varint(buf, i, b.length);
                        if (n == null || n[0] < 0 || n[1] + n[0] > b.length) return null;
                        m.fields.computeIfAbsent(field, f -> new ArrayList<>()).add(Arrays.copyOfRange(b, (int) n[1], (int) (n[1] + n[0])));
                        i = (int) (n[1] + n[0]);
                    }
                    default -> {
                        i = dev.walkit.format.ProtoWire.skip(buf, i, b.length, (int) (t[0] & 7));
                        if (i < 0) return null;
                    }
                }
            }
            return i == b.length ? m : null;
        }

        boolean has(int field) {
            return fields.containsKey(field);
        }

        long varint(int field) {
            List<Object> v = fields.get(field);
            return v == null || !(v.get(v.size() - 1) instanceof Long l) ? 0 : l;
        }

        byte[] bytes(int field) {
            List<Object> v = fields.get(field);
            return v == null || !(v.get(v.size() - 1) instanceof byte[] b) ? null : b;
        }

        List<byte[]> all(int field) {
            List<byte[]> out = new ArrayList<>();
            for (Object o : fields.getOrDefault(field, List.of())) if (o instanceof byte[] b) out.add(b);
            return out;
        }
    }
}
