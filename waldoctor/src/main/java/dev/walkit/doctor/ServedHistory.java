package dev.walkit.doctor;

import dev.walkit.format.KeyValue;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Store;
import dev.walkit.format.replay.KeyState;
import dev.walkit.doctor.serve.History;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A loaded store's history asked the questions etcd's API asks, with keys as bytes: what is live in a key range
 * at a revision, the events after a revision in order, the leases. What {@code waldoctor serve} answers from; the
 * shell's commands ask {@link LogIndex} the same questions in text. Immutable once made, so any number of threads
 * may ask at once (the file is read through positional reads of a mapped window).
 *
 * <p>Revisions: {@link #latest()} is the served view's revision (the last applied, or the one pinned); a revision
 * below {@link #compactRevision()} is compacted, one above {@link #latest()} is in the future, as etcd says.
 */
public final class ServedHistory implements History {

    private final LogIndex index;
    private final long latest;
    private final long compact;
    private final boolean v2;
    /** Keys served beside the store's (walkit/…: the damage and the account), in byte order; empty for a healthy store. */
    private final TreeMap<byte[], KeyValue> overlay = new TreeMap<>(Arrays::compareUnsigned);
    private volatile Map<Long, Lease> leases;

    /** The history of {@code index}, served at {@code pinned} (0: the last applied revision). */
    public ServedHistory(LogIndex index, long pinned) {
        this.index = index;
        long last = index.state().revision();
        this.compact = Math.max(0, index.source().etcd() != null ? index.source().etcd().compactRevision() : index.account().compactRevision());
        if (pinned < 0 || pinned > last) throw new IllegalArgumentException("--rev " + pinned + " is not a revision of the store (" + (compact + 1) + ".." + last + ")");
        if (pinned > 0 && pinned < compact) throw new IllegalArgumentException("--rev " + pinned + " is compacted (the store's history starts at " + compact + ")");
        this.latest = pinned > 0 ? pinned : last;
        this.v2 = index.format() == WalFormat.V2;
    }

    /**
     * Adds a key served beside the store's, at the served revision (what serve says of the damage): under
     * {@code walkit/}, seen by requests whose key starts there.
     */
    @Override
    public void overlay(byte[] key, byte[] value) {
        overlay.put(key, KeyValue.put(key, latest, latest, 1, value, 0));
    }

    public LogIndex index() {
        return index;
    }

    @Override
    public dev.walkit.format.account.Account account() {
        return index.account();
    }

    @Override
    public long latest() {
        return latest;
    }

    @Override
    public long compactRevision() {
        return compact;
    }

    @Override
    public Store store() {
        return index.account().store();
    }

    /**
     * Visits the keys of {@code [key, end)} live at {@code rev} in byte order ({@code end} null: {@code key} alone;
     * empty: every key from {@code key} on), and returns how many are live there. {@code materialize} is how many
     * to read and hand to {@code v} (0: count only); the count goes on past them.
     */
    @Override
    public long range(byte[] key, byte[] end, long rev, long materialize, boolean values, Visitor v) {
        long count = 0;
        List<KeyValue> extra = overlayIn(key, end, rev);
        int e = 0;
        long handed = 0;
        if (end == null) {
            KeyState ks = index.state().keys().get(key);
            if (ks instanceof LogIndex.HistoryState s && s.last >= 0) {
                int id = index.appliedAt(s, rev);
                if (id >= 0 && !index.applied().isDelete(id)) {
                    count++;
                    if (materialize > 0) v.visit(at(s, id, values));
                }
            }
            if (count == 0 && !extra.isEmpty()) {
                if (materialize > 0) v.visit(extra.get(0));
                return 1;
            }
            return count;
        }
        LogIndex.HistoryState[] keys = index.sortedKeys();
        int from = index.lowerBound(key);
        int past = end.length == 0 ? keys.length : index.lowerBound(end);
        boolean more = materialize > 0;
        for (int k = from; k < past; k++) {
            LogIndex.HistoryState s = keys[k];
            int id = index.appliedAt(s, rev);
            if (id < 0 || index.applied().isDelete(id)) continue;
            // Overlay keys before this one go first: the answer stays in byte order.
            while (e < extra.size() && Arrays.compareUnsigned(extra.get(e).key(), s.key()) < 0) {
                count++;
                if (more && handed < materialize) more = v.visit(extra.get(e)) && ++handed < materialize;
                e++;
            }
            count++;
            if (more && handed < materialize) more = v.visit(at(s, id, values)) && ++handed < materialize;
        }
        for (; e < extra.size(); e++) {
            count++;
            if (more && handed < materialize) more = v.visit(extra.get(e)) && ++handed < materialize;
        }
        return count;
    }

    /** The reserved range's first bytes: only a request that starts inside it sees the overlay (a whole-keyspace read, a migration, does not). */
    static final byte[] RESERVED = "walkit/".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private List<KeyValue> overlayIn(byte[] key, byte[] end, long rev) {
        if (overlay.isEmpty() || rev < latest || key.length < RESERVED.length || !Arrays.equals(key, 0, RESERVED.length, RESERVED, 0, RESERVED.length)) {
            return List.of();
        }
        if (end == null) {
            KeyValue kv = overlay.get(key);
            return kv == null ? List.of() : List.of(kv);
        }
        return new ArrayList<>((end.length == 0 ? overlay.tailMap(key, true) : overlay.subMap(key, true, end, false)).values());
    }

    /**
     * Visits the events of revisions {@code from..to} (at most {@link #latest()}) in the order the log applied them,
     * each with the key's state before it; returns the revision after the last visited (where to go on), or
     * {@code to + 1} when all were. Keys outside {@code [key, end)} (end as in {@link #range}) are skipped.
     */
    @Override
    public long events(long from, long to, byte[] key, byte[] end, EventVisitor v) {
        AppliedRecords applied = index.applied();
        long top = Math.min(to, latest);
        if (from <= compact && compact > 0 && compact <= top) {
            // The compact revision's own writes survive in the snapshot prefix, as in etcd's history: the records written at it.
            int ordinary = index.transactionCount() > 0 ? applied.transactionStart(0) : applied.size();
            for (int id = 0; id < ordinary; id++) {
                if (applied.revision(id) != compact) continue;
                KeyValue kv = record(id);
                if (inRange(kv.key(), key, end) && !v.event(kv, null)) return compact + 1;
            }
        }
        int t = firstTransactionAtOrAfter(Math.max(from, compact + 1));
        if (t < 0) return to + 1;
        for (int id = applied.transactionStart(t); id < applied.size(); id++) {
            long rev = applied.revision(id);
            if (rev > top) return rev;
            KeyValue kv = record(id);
            if (!inRange(kv.key(), key, end)) continue;
            int p = applied.previous(id);
            KeyValue prev = p >= 0 && !applied.isDelete(p) ? record(p) : null;
            if (!v.event(kv, prev)) return rev + 1;
        }
        return to + 1;
    }

    static boolean inRange(byte[] k, byte[] key, byte[] end) {
        if (end == null) return Arrays.equals(k, key);
        if (Arrays.compareUnsigned(k, key) < 0) return false;
        return end.length == 0 || Arrays.compareUnsigned(k, end) < 0;
    }

    /** Index of the first ordinary transaction with a revision at or after {@code rev}, or -1. */
    private int firstTransactionAtOrAfter(long rev) {
        int lo = 0;
        int hi = index.transactionCount() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (index.txnRevision(mid) >= rev) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    /** The leases at the served view: the store's own (an etcd db's lease bucket, with TTLs), else one per lease ID of a live key. */
    @Override
    public Map<Long, Lease> leases() {
        Map<Long, Lease> m = leases;
        if (m != null) return m;
        Map<Long, List<byte[]>> keysOf = new TreeMap<>();
        LogIndex.HistoryState[] keys = index.sortedKeys();
        for (LogIndex.HistoryState s : keys) {
            int id = index.appliedAt(s, latest);
            if (id < 0 || index.applied().isDelete(id)) continue;
            long lease = record(id).lease();
            if (lease != 0) keysOf.computeIfAbsent(lease, x -> new ArrayList<>()).add(s.key());
        }
        m = new LinkedHashMap<>();
        LogIndex.EtcdFacts etcd = index.source().etcd();
        boolean kine = index.source().kind() == Store.Kind.KINE;
        if (etcd != null) {
            for (Map.Entry<Long, Long> e : new TreeMap<>(etcd.leases()).entrySet()) {
                m.put(e.getKey(), new Lease(e.getKey(), e.getValue(), List.copyOf(keysOf.getOrDefault(e.getKey(), List.of()))));
            }
        } else {
            long ttl = index.state().leases().ttlSeconds();
            for (Map.Entry<Long, List<byte[]>> e : keysOf.entrySet()) {
                // kine's lease is the key's TTL in seconds; a WAL keeps no TTL: the conservative one recovery grants.
                m.put(e.getKey(), new Lease(e.getKey(), kine ? e.getKey() : ttl, List.copyOf(e.getValue())));
            }
        }
        m = java.util.Collections.unmodifiableMap(m);
        leases = m;
        return m;
    }

    /** The applied record {@code id} (of key state {@code s}) as it holds: the record as written (v2), or with the fields v1 derives. */
    private KeyValue at(LogIndex.HistoryState s, int id) {
        return at(s, id, true);
    }

    /** The applied record {@code id} of key {@code s}; without {@code values} its value is not copied (keys only). */
    private KeyValue at(LogIndex.HistoryState s, int id, boolean values) {
        if (v2) return index.recordAt(index.applied().offset(id), values);
        LogIndex.History h = index.history(s);
        long off = index.applied().offset(id);
        for (int i = 0; i < h.size; i++) {
            if (h.offsets[i] == off) return index.entry(h, i);
        }
        throw new IllegalStateException("record at " + off + " is not in its key's history");
    }

    /** The applied record {@code id}, for events: a DELETE as the log wrote it (key and revision). */
    private KeyValue record(int id) {
        long off = index.applied().offset(id);
        if (v2) return index.recordAt(off);
        byte[] key = index.v1Key(off);
        return at((LogIndex.HistoryState) index.state().keys().get(key), id);
    }
}
