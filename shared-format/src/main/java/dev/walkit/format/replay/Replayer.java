package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.Transaction;
import dev.walkit.format.TransactionGrouper;
import dev.walkit.format.WalEntry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Replays complete transactions in log order into a {@link KeyIndex} (docs/format.md §5, §6, §9):
 * the snapshot prefix first (a marker at offset 0 and the records it counts), then ordinary
 * transactions with strictly increasing revisions. A transaction whose revision is not greater
 * than the last applied is dropped and reported (the first occurrence wins). Broken create_revision
 * / version rules are reported and the record applied as stored.
 */
public final class Replayer implements TransactionGrouper.Sink {
    /** Cap on findings kept in the list; {@link #findingCounts()} counts all. */
    public static final int MAX_FINDINGS_KEPT = 10_000;

    /** Observes what replay does with each transaction. */
    public interface Listener {
        /** After {@code txn} was applied; {@code keys} holds the state it left (v1: the derived fields). */
        default void applied(Transaction txn, KeyIndex keys) {
        }

        /** Each record as it is applied, with the key's state it left (no lookup needed to find it). */
        default void recordApplied(WalEntry e, KeyState state) {
        }

        /** {@code why} in words; the finding, when the drop is one, went to {@link Replayer#findings()}. */
        default void dropped(Transaction txn, String why) {
        }

        default void damage(DamageSpan span) {
        }

        /**
         * Whether this listener takes {@link #appliedPlain} for a transaction of plain records that replay
         * applies as it is ({@link RecordBatch}), with no {@link WalEntry} or {@link Transaction} made for it:
         * it then gets neither {@link #applied} nor {@link #recordApplied} for such a transaction. Replay of a
         * v2 log reads in batches only for a listener that does (or none).
         */
        default boolean takesPlain() {
            return false;
        }

        /**
         * A transaction of {@code records} plain records, the {@code length} bytes at {@code offset}, applied as
         * it is ({@link #takesPlain}).
         */
        default void appliedPlain(long offset, long length, int records) {
        }
    }

    /**
     * @param deriveVersions    v1 input: derive create_revision and version by the rules of §5
     * @param toRevision        apply only transactions with revision at most this (point-in-time recovery)
     * @param stopAtFirstDamage the point-in-time policy: apply nothing after the first damage
     */
    public record Options(boolean deriveVersions, long toRevision, boolean stopAtFirstDamage) {
        public static Options defaults() {
            return new Options(false, Long.MAX_VALUE, false);
        }
    }

    /** Reads value bytes back from the WAL file (the snapshot marker's count). */
    public interface Values {
        byte[] read(long offset, int length);
    }

    private final Options options;
    private final Values values;
    private final Listener listener;
    private final KeyIndex keys = new KeyIndex();
    private final List<DamageSpan> damage = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();
    private final Map<DamageKind, Integer> findingCounts = new EnumMap<>(DamageKind.class);

    private long records;
    private long transactions;
    private long revision;
    private long firstRevision = -1;
    private long compactRevision;
    private long maxLeaseSeen;
    private boolean damaged;
    private long firstDamageOffset = -1;
    // Snapshot prefix (§6).
    private boolean ordinarySeen;
    private long snapshotMarkerOffset = -1;
    private long snapshotExpected;
    private long snapshotPresent;
    private byte[] lastSnapshotKey;
    private boolean prefixMarkerless;

    public Replayer(Options options, Values values, Listener listener) {
        this.options = options;
        this.values = values;
        this.listener = listener == null ? new Listener() { } : listener;
    }

    @Override
    public void damage(DamageSpan span) {
        damage.add(span);
        markDamaged(span.offset());
        listener.damage(span);
    }

    @Override
    public void finding(Finding f) {
        findingCounts.merge(f.kind(), 1, Integer::sum);
        if (findings.size() < MAX_FINDINGS_KEPT) findings.add(f);
        if (f.kind() == DamageKind.INCOMPLETE_TRANSACTION) markDamaged(f.offset());
    }

    private void markDamaged(long offset) {
        if (!damaged) firstDamageOffset = offset;
        damaged = true;
    }

    @Override
    public void transaction(Transaction txn) {
        if (options.stopAtFirstDamage && damaged) {
            listener.dropped(txn, "after the first damage at offset " + firstDamageOffset + " (point-in-time)");
            return;
        }
        WalEntry first = txn.entries().get(0);
        if (first.isSnapshot()) {
            snapshotRecord(txn, first);
            return;
        }
        closeSnapshotPrefix(first.offset());
        ordinarySeen = true;
        if (txn.revision() > options.toRevision) {
            listener.dropped(txn, "revision " + txn.revision() + " is after --to-revision " + options.toRevision);
            return;
        }
        if (txn.revision() <= revision && (transactions > 0 || snapshotMarkerOffset >= 0)) {
            Finding f = new Finding(DamageKind.REVISION_REGRESSION, txn.offset(), txn.end() - txn.offset(), txn.revision(),
                    txn.entries().size(), "revision " + txn.revision() + " is not greater than the last applied " + revision);
            drop(txn, f);
            return;
        }
        // By index: an iterator over the immutable list was allocated for each transaction (the lists are of
        // two classes, so the compiler did not take it apart): a tenth of walrecover's allocation on 2 GiB.
        List<WalEntry> entries = txn.entries();
        for (int i = 0, n = entries.size(); i < n; i++) apply(entries.get(i));
        revision = txn.revision();
        if (firstRevision < 0) firstRevision = revision;
        transactions++;
        listener.applied(txn, keys);
    }

    /** The most records of a transaction {@link #applyPlain} takes. */
    static final int MAX_PLAIN = 16;
    private final KeyState[] plainStates = new KeyState[MAX_PLAIN];

    /**
     * Applies the plain records {@code [from, to)} of {@code b}, a whole transaction ({@link RecordBatch#transactionEnd}),
     * when that is all replay of it would do: the grouping has nothing pending ({@link TransactionGrouper#idle()}),
     * ordinary transactions have begun, the transaction is applied (revision above the last, at most
     * --to-revision, none dropped after damage), its records break no rule (create_revision and version as
     * §5 derives them, a DELETE of a live key) and name no key twice. Returns false, having changed nothing
     * but perhaps adding keys (as {@link #transaction} would first), when it is not: the caller then groups and
     * replays them as {@link WalEntry}s ({@link RecordBatch#item}), which makes the findings or the drop. Same
     * state, same findings.
     */
    boolean applyPlain(RecordBatch b, int from, int to) {
        long rev = b.revision[from];
        int n = to - from;
        if (!ordinarySeen || transactions == 0 || rev <= revision || rev > options.toRevision || options.deriveVersions
                || (options.stopAtFirstDamage && damaged) || n > MAX_PLAIN) {
            return false;
        }
        KeyState[] states = plainStates;
        for (int k = 0; k < n; k++) {
            int i = from + k;
            KeyState s = keys.getOrCreate(b.keys, b.keyStart[i], b.keyLength[i], b.keyHash[i]);
            for (int m = 0; m < k; m++) {
                if (states[m] == s) return false; // a key twice: its second record is judged after the first is applied
            }
            boolean holds = Flags.isDelete(b.flags[i]) ? s.live
                    : b.createRevision[i] == (s.live ? s.createRevision : rev) && b.version[i] == (s.live ? s.version + 1 : 1);
            if (!holds) return false;
            states[k] = s;
        }
        for (int k = 0; k < n; k++) apply(b, from + k, states[k]);
        revision = rev;
        if (firstRevision < 0) firstRevision = rev;
        transactions++;
        listener.appliedPlain(b.offset[from], b.offset[to - 1] + b.length[to - 1] - b.offset[from], n);
        return true;
    }

    /** Applies plain record {@code i} of {@code b} to the state of its key, {@code s}, as {@link #apply(WalEntry)} does. */
    private void apply(RecordBatch b, int i, KeyState s) {
        if (b.lease[i] > maxLeaseSeen) maxLeaseSeen = b.lease[i];
        if (Flags.isDelete(b.flags[i])) {
            tombstone(s, b.revision[i], b.offset[i]);
        } else {
            put(s, b.createRevision[i], b.revision[i], b.version[i], b.lease[i], b.valueOffset[i], b.valueLength[i], b.offset[i]);
        }
        records++;
    }

    private void drop(Transaction txn, Finding why) {
        finding(why);
        listener.dropped(txn, why.detail());
    }

    private void snapshotRecord(Transaction txn, WalEntry e) {
        boolean marker = e.key().length == 0;
        if (marker) {
            if (e.offset() == 0 && !ordinarySeen && snapshotMarkerOffset < 0 && transactions == 0 && e.valueLength() == 8) {
                snapshotMarkerOffset = 0;
                compactRevision = e.revision();
                revision = e.revision();
                snapshotExpected = countFrom(values.read(e.valueOffset(), 8));
                records++;
                transactions++;
                listener.applied(txn, keys);
                return;
            }
            drop(txn, new Finding(DamageKind.MISPLACED_SNAPSHOT, e.offset(), e.length(), e.revision(), 1,
                    "a snapshot marker at offset " + e.offset() + " (only one, at offset 0, is allowed)"));
            return;
        }
        boolean inPrefix = !ordinarySeen && (snapshotMarkerOffset < 0 || snapshotPresent < snapshotExpected);
        if (!inPrefix) {
            drop(txn, new Finding(DamageKind.MISPLACED_SNAPSHOT, e.offset(), e.length(), e.revision(), 1,
                    ordinarySeen ? "a snapshot record after ordinary transactions" : "more snapshot records than the marker counts ("
                            + snapshotExpected + ")"));
            return;
        }
        if (snapshotMarkerOffset < 0 && !prefixMarkerless) {
            prefixMarkerless = true;
            finding(new Finding(DamageKind.MISPLACED_SNAPSHOT, e.offset(), 0, e.revision(), 0,
                    "snapshot records without a marker at offset 0: applied as a snapshot of unknown count"));
        }
        if (lastSnapshotKey != null && KeyIndex.KEY_ORDER.compare(lastSnapshotKey, e.key()) >= 0) {
            finding(new Finding(DamageKind.MISPLACED_SNAPSHOT, e.offset(), e.length(), e.revision(), 0,
                    "snapshot keys out of ascending byte order"));
        }
        if (snapshotMarkerOffset >= 0 && e.revision() > compactRevision) {
            finding(new Finding(DamageKind.VERSION_MISMATCH, e.offset(), e.length(), e.revision(), 0,
                    "snapshot record with mod_revision " + e.revision() + " above the compact revision " + compactRevision));
        }
        lastSnapshotKey = e.key();
        snapshotPresent++;
        KeyState s = keys.getOrCreate(e.key());
        set(s, e, e.createRevision(), e.version());
        listener.recordApplied(e, s);
        if (snapshotMarkerOffset < 0) revision = Math.max(revision, e.revision());
        records++;
        transactions++;
        listener.applied(txn, keys);
    }

    /** Decodes a marker value (u64 little-endian). */
    public static long countFrom(byte[] value) {
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private void closeSnapshotPrefix(long at) {
        if (snapshotMarkerOffset >= 0 && !ordinarySeen && snapshotPresent < snapshotExpected) {
            finding(new Finding(DamageKind.TRUNCATED_SNAPSHOT, snapshotMarkerOffset, at - snapshotMarkerOffset, compactRevision, 0,
                    "the snapshot marker counts " + snapshotExpected + " records, " + snapshotPresent + " are present"));
        }
    }

    private void apply(WalEntry e) {
        records++;
        if (e.lease() > maxLeaseSeen) maxLeaseSeen = e.lease();
        KeyState s = keys.getOrCreate(e.key());
        if (e.isDelete()) {
            if (!s.live) {
                finding(new Finding(DamageKind.DELETE_OF_ABSENT_KEY, e.offset(), e.length(), e.revision(), 0,
                        "DELETE of a key that is not live"));
            }
            tombstone(s, e.revision(), e.offset());
            listener.recordApplied(e, s);
            return;
        }
        long expectCreate = s.live ? s.createRevision : e.revision();
        long expectVersion = s.live ? s.version + 1 : 1;
        if (options.deriveVersions) {
            set(s, e, expectCreate, expectVersion);
            listener.recordApplied(e, s);
            return;
        }
        if (e.createRevision() != expectCreate || e.version() != expectVersion) {
            finding(new Finding(DamageKind.VERSION_MISMATCH, e.offset(), e.length(), e.revision(), 0,
                    "PUT with create_revision " + e.createRevision() + ", version " + e.version() + "; expected "
                            + expectCreate + ", " + expectVersion));
        }
        set(s, e, e.createRevision(), e.version());
        listener.recordApplied(e, s);
    }

    private void set(KeyState s, WalEntry e, long createRevision, long version) {
        put(s, createRevision, e.revision(), version, e.lease(), e.valueOffset(), e.valueLength(), e.offset());
        if (e.lease() > maxLeaseSeen) maxLeaseSeen = e.lease();
    }

    /** The key's state after a PUT: live, with the value at {@code valueOffset} (the record at {@code recordOffset}). */
    private void put(KeyState s, long createRevision, long modRevision, long version, long lease, long valueOffset, int valueLength,
                     long recordOffset) {
        if (!s.live) keys.liveChanged(true);
        s.live = true;
        s.createRevision = createRevision;
        s.modRevision = modRevision;
        s.version = version;
        s.lease = lease;
        s.valueOffset = valueOffset;
        s.valueLength = valueLength;
        s.recordOffset = recordOffset;
    }

    /** The key's state after a DELETE at {@code modRevision}: a tombstone, attached to no lease. */
    private void tombstone(KeyState s, long modRevision, long recordOffset) {
        if (s.live) keys.liveChanged(false);
        s.live = false;
        s.modRevision = modRevision;
        s.recordOffset = recordOffset;
        s.valueOffset = 0;
        s.valueLength = 0;
        s.lease = 0;
    }

    /** Call once after the last item: closes a snapshot prefix that the log ended inside. */
    public void end(long fileSize) {
        closeSnapshotPrefix(fileSize);
        ordinarySeen = true;
    }

    public KeyIndex keys() {
        return keys;
    }

    public List<DamageSpan> damage() {
        return damage;
    }

    public List<Finding> findings() {
        return findings;
    }

    public Map<DamageKind, Integer> findingCounts() {
        return findingCounts;
    }

    /** Records in applied transactions. */
    public long records() {
        return records;
    }

    /** Applied transactions (each snapshot-prefix record counts as one). */
    public long transactions() {
        return transactions;
    }

    /** The store's revision after replay: the last applied transaction's, or the compact revision. */
    public long revision() {
        return revision;
    }

    public long firstRevision() {
        return firstRevision;
    }

    public long compactRevision() {
        return compactRevision;
    }

    /** Lease metadata with the default conservative TTL. */
    public LeaseMetadata leases() {
        return leases(LeaseMetadata.DEFAULT_TTL_SECONDS);
    }

    public LeaseMetadata leases(long ttlSeconds) {
        return LeaseMetadata.rebuild(keys, maxLeaseSeen, ttlSeconds);
    }
}
