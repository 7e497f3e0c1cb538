package dev.walkit.doctor;

import dev.walkit.format.KeyValue;
import dev.walkit.format.account.Store;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.doctor.serve.History;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pass's history of a store ({@link StoreHistory}, keyed by bytes) served at a revision: what
 * {@code waldoctor serve} answers from, with the keys serve says beside the store's (the damage and the account, under
 * {@code walkit/}). Immutable once made, so any number of threads may ask at once (the file is read through positional
 * reads of a mapped window).
 *
 * <p>Revisions: {@link #latest()} is the served view's revision (the last applied, or the one pinned); a revision
 * below {@link #compactRevision()} is compacted, one above {@link #latest()} is in the future, as etcd says.
 */
public final class ServedHistory implements History {

    private final StoreHistory index;
    private final long latest;
    private final long compact;
    /** Keys served beside the store's (walkit/…: the damage and the account), in byte order; empty for a healthy store. */
    private final TreeMap<byte[], KeyValue> overlay = new TreeMap<>(Arrays::compareUnsigned);
    private volatile Map<Long, StoreHistory.Lease> leases;

    /** The history of {@code index}, served at {@code pinned} (0: the last applied revision). */
    public ServedHistory(StoreHistory index, long pinned) {
        this.index = index;
        long last = index.revision();
        this.compact = Math.max(0, index.source().etcd() != null ? index.source().etcd().compactRevision() : index.account().compactRevision());
        if (pinned < 0 || pinned > last) throw new IllegalArgumentException("--rev " + pinned + " is not a revision of the store (" + (compact + 1) + ".." + last + ")");
        if (pinned > 0 && pinned < compact) throw new IllegalArgumentException("--rev " + pinned + " is compacted (the store's history starts at " + compact + ")");
        this.latest = pinned > 0 ? pinned : last;
    }

    @Override
    public void overlay(byte[] key, byte[] value) {
        overlay.put(key, KeyValue.put(key, latest, latest, 1, value, 0));
    }

    public StoreHistory index() {
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

    /** The store's range ({@link StoreHistory#range}), with the overlay's keys in their byte order when the request reaches them. */
    @Override
    public long range(byte[] key, byte[] end, long rev, long materialize, boolean values, StoreHistory.Visitor v) {
        List<KeyValue> extra = overlayIn(key, end, rev);
        if (extra.isEmpty()) return index.range(key, end, rev, materialize, values, v);
        // The first `materialize` of the merge are among the first `materialize` of each side (both in byte order).
        List<KeyValue> mine = new ArrayList<>();
        long count = index.range(key, end, rev, materialize, values, kv -> mine.add(kv));
        if (end == null && count > 0) {
            if (materialize > 0) v.visit(mine.get(0));
            return count;
        }
        List<KeyValue> merged = new ArrayList<>(mine);
        merged.addAll(extra);
        merged.sort((a, b) -> Arrays.compareUnsigned(a.key(), b.key()));
        for (int i = 0; i < merged.size() && i < materialize; i++) if (!v.visit(merged.get(i))) break;
        return count + extra.size();
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

    /** The store's events of revisions {@code from..to}, at most {@link #latest()} ({@link StoreHistory#events}). */
    @Override
    public long events(long from, long to, byte[] key, byte[] end, StoreHistory.EventVisitor v) {
        long next = index.events(from, Math.min(to, latest), key, end, compact, v);
        // Past the store's last revision nothing follows: all of from..to was visited.
        return to > latest && next == latest + 1 && latest == index.revision() ? to + 1 : next;
    }

    /** The leases at the served view ({@link StoreHistory#leases}). */
    @Override
    public Map<Long, StoreHistory.Lease> leases() {
        Map<Long, StoreHistory.Lease> m = leases;
        if (m == null) leases = m = index.leases(latest);
        return m;
    }
}
