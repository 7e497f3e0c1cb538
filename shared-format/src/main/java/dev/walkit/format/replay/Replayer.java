package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.group.TransactionGrouper;
import dev.walkit.format.WalEntry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
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
    /**
     * Cap on the rule findings kept in the list, for a report to show; {@link #findingCounts()} counts all. An incomplete
     * transaction's finding is always kept, past the cap too: what is dropped, the verdict and the policies read it.
     */
    public static final int MAX_FINDINGS_KEPT = 10_000;

    /**
     * Observes what replay does. The transaction given to {@link #applied} may be a view valid during the call
     * ({@link Transaction}); nothing else is.
     */
    public interface Listener {
        /** Each valid record as it is read, in file order, whatever replay then does with it. */
        default void read(long offset, long revision) {
        }

        /** After {@code txn} was applied; {@code keys} holds the state it left (v1: the derived fields). */
        default void applied(Transaction txn, KeyIndex keys) {
        }

        /** Each record as it is applied (the record at {@code offset}), with the key's state it left. */
        default void recordApplied(long offset, long revision, boolean delete, KeyState state) {
        }

        /** {@code why}, typed; the finding, when the drop is one, went to {@link Replayer#findings()}. */
        default void dropped(Transaction txn, DropReason why) {
        }

        default void damage(DamageSpan span) {
        }

        /**
         * A rule broken by a record applied as stored ({@link Replayer#firstKeptBreak}): a log that keeps the applied
         * records as they are would carry it, at the record of {@code key}. Told as it is found (the finding also goes to
         * {@link Replayer#findings()}).
         */
        default void keptBreak(Finding f, byte[] key) {
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
    private final KeyIndex keys;
    private final List<DamageSpan> damage = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();
    private final Map<DamageKind, Integer> findingCounts = new EnumMap<>(DamageKind.class);

    private long records;
    private long transactions;
    /** Ordinary transactions applied (the snapshot prefix not counted), and dropped ones ahead of the last applied revision ({@link #account}). */
    private long ordinaryApplied;
    private long droppedAhead;
    private long highestDropped;
    /** Dropped revisions above the last applied one, until a later applied revision settles them. */
    private final java.util.TreeSet<Long> pendingDrops = new java.util.TreeSet<>();
    private long revision;
    private long firstRevision = -1;
    private long compactRevision;
    /** The highest revision of the snapshot prefix applied (its marker's or its records'), 0 without one. */
    private long prefixRevision;
    private long maxLeaseSeen;
    private boolean damaged;
    private long firstDamageOffset = -1;
    private final SnapshotPrefix prefix = new SnapshotPrefix();
    private byte[] lastSnapshotKey;
    /** The transaction the prefix's rules are asked about, for the findings they report. */
    private Transaction judged;
    /** Why {@link #judged} is dropped, when a rule said so. */
    private DropReason dropWhy;
    private final SnapshotPrefix.Report report = (kind, offset, length, detail, effect, inPrefix) -> {
        boolean drops = effect == SnapshotPrefix.Effect.DROPS;
        // A rule judged on one record names its key (a snapshot record kept as stored, or one transaction's record).
        byte[] key = judged != null && judged.records() == 1 && (kind == DamageKind.VERSION_MISMATCH || kind == DamageKind.DELETE_OF_ABSENT_KEY)
                ? judged.entries().get(0).key() : null;
        Finding f = new Finding(kind, offset, length, kind == DamageKind.TRUNCATED_SNAPSHOT ? prefix.compactRevision()
                : judged == null ? -1 : judged.revision(),
                drops && judged != null ? judged.records() : 0, key == null ? detail : "key " + dev.walkit.format.KeyQuote.quote(key) + ": " + detail, key);
        finding(f);
        if (drops) dropWhy = new DropReason.RuleBroken(f);
        if (effect == SnapshotPrefix.Effect.KEPT) keptBreak(f, judged == null ? new byte[0] : judged.entries().get(0).key());
        if (inPrefix) markDamaged(offset);
    };
    /** The first finding of a rule broken by a record applied as stored, and how many there are. */
    private Finding firstKeptBreak;
    private long keptBreaks;

    public Replayer(Options options, Values values, Listener listener) {
        this(options, values, listener, new KeyIndex());
    }

    /** Replays into {@code keys} (empty; its kind of {@link KeyState} is what a tool keeps per key). */
    public Replayer(Options options, Values values, Listener listener, KeyIndex keys) {
        this.options = options;
        this.keys = keys;
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
        if (findings.size() < MAX_FINDINGS_KEPT || f.kind() == DamageKind.INCOMPLETE_TRANSACTION) findings.add(f);
        if (f.kind() == DamageKind.INCOMPLETE_TRANSACTION) {
            markDamaged(f.offset());
            countDropped(f.revision()); // a transaction read in part and dropped, reported by the grouping as a finding
        }
    }

    private void keptBreak(Finding f, byte[] key) {
        if (firstKeptBreak == null) firstKeptBreak = f;
        keptBreaks++;
        listener.keptBreak(f, key);
    }

    /**
     * The first finding of a rule broken by a record that replay applied as stored (§5's create_revision/version
     * or DELETE rule, a snapshot key out of order or above the compact revision), or null: what a log that keeps
     * the applied records as they are (walrecover's history form) carries. A prefix count that does not match is
     * not one: such a writer writes the count of what it keeps.
     */
    public Finding firstKeptBreak() {
        return firstKeptBreak;
    }

    /** How many findings {@link #firstKeptBreak} is the first of. */
    public long keptBreaks() {
        return keptBreaks;
    }

    private void markDamaged(long offset) {
        if (!damaged) firstDamageOffset = offset;
        damaged = true;
    }

    @Override
    public void transaction(Transaction txn) {
        if (options.stopAtFirstDamage && damaged) {
            dropAfterDamage(txn);
            return;
        }
        List<WalEntry> entries = txn.entries();
        WalEntry first = entries.get(0);
        int n = entries.size();
        for (int i = 0; i < n; i++) {
            if (entries.get(i).isSnapshot()) {
                judged = txn;
                SnapshotPrefix.Action a = n > 1 ? prefix.inTransaction(txn.offset(), txn.end() - txn.offset(), n, report)
                        : snapshotRecord(first);
                judged = null;
                if (a == SnapshotPrefix.Action.DROP) {
                    dropped(txn, dropWhy);
                } else if (options.stopAtFirstDamage && damaged) {
                    dropAfterDamage(txn); // the first inconsistency of the prefix: point-in-time keeps what came before
                } else {
                    applySnapshot(a, first, txn);
                }
                return;
            }
        }
        if (!prefix.closed()) {
            judged = txn;
            prefix.close(first.offset(), report);
            judged = null;
            if (options.stopAtFirstDamage && damaged) {
                dropAfterDamage(txn);
                return;
            }
        }
        if (txn.revision() > options.toRevision) {
            dropped(txn, new DropReason.AfterToRevision(txn.revision(), options.toRevision));
            return;
        }
        if (!Rules.revisionAdvances(txn.revision(), revision, transactions > 0 || prefix.hasMarker())) {
            drop(txn, regression(txn, n));
            return;
        }
        // By index: an iterator over the immutable list was allocated for each transaction (the lists are of
        // two classes, so the compiler did not take it apart): a tenth of walrecover's allocation on 2 GiB.
        for (int i = 0; i < n; i++) apply(entries.get(i));
        revision = txn.revision();
        if (firstRevision < 0) firstRevision = revision;
        transactions++;
        ordinaryApplied++;
        appliedRevision(revision);
        listener.applied(txn, keys);
    }

    /**
     * The finding of a transaction whose revision does not advance: a {@code duplicated-record} when its bytes
     * repeat, byte for byte, the bytes just before it (the same transaction appended twice), else a
     * {@code revision-regression}. Looked at only here, so the applied path pays nothing for it.
     */
    private Finding regression(Transaction txn, int n) {
        long length = txn.end() - txn.offset();
        long before = txn.offset() - length;
        if (before >= 0 && length <= Integer.MAX_VALUE
                && Arrays.equals(values.read(before, (int) length), values.read(txn.offset(), (int) length))) {
            return new Finding(DamageKind.DUPLICATED_RECORD, txn.offset(), length, txn.revision(), n,
                    "a byte-for-byte repeat of the " + length + " bytes at offset " + before + " (revision " + txn.revision() + ")");
        }
        return new Finding(DamageKind.REVISION_REGRESSION, txn.offset(), length, txn.revision(),
                n, "revision " + txn.revision() + " is not greater than the last applied " + revision);
    }

    private void dropAfterDamage(Transaction txn) {
        dropped(txn, new DropReason.AfterFirstDamage(firstDamageOffset));
    }

    /** The most records of a transaction {@link #applyPlain} takes. */
    static final int MAX_PLAIN = 16;
    private final KeyState[] plainStates = new KeyState[MAX_PLAIN];
    private final BatchTransaction plainView = new BatchTransaction();

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
        if (!prefix.closed() || transactions == 0 || !Rules.revisionAdvances(rev, revision, true) || rev > options.toRevision || options.deriveVersions
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
            if (!Rules.holds(Flags.isDelete(b.flags[i]), s.live, s.createRevision, s.version, rev, b.createRevision[i], b.version[i])) {
                return false;
            }
            states[k] = s;
        }
        for (int k = 0; k < n; k++) apply(b, from + k, states[k]);
        revision = rev;
        if (firstRevision < 0) firstRevision = rev;
        transactions++;
        ordinaryApplied++;
        appliedRevision(rev);
        listener.applied(plainView.set(b, from, to), keys);
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
        listener.recordApplied(b.offset[i], b.revision[i], Flags.isDelete(b.flags[i]), s);
    }

    private void drop(Transaction txn, Finding why) {
        finding(why);
        dropped(txn, new DropReason.RuleBroken(why));
    }

    /** What the prefix's rules say of the lone snapshot record {@code e} ({@link SnapshotPrefix#lone}). */
    private SnapshotPrefix.Action snapshotRecord(WalEntry e) {
        byte[] key = e.key();
        boolean emptyKey = key.length == 0;
        boolean duplicate = !emptyKey && !prefix.closed() && keys.get(key) != null;
        boolean ascending = lastSnapshotKey == null || KeyIndex.KEY_ORDER.compare(lastSnapshotKey, key) < 0;
        return prefix.lone(e.offset(), e.length(), e.revision(), emptyKey, e.valueLength(), transactions == 0, duplicate, ascending,
                report);
    }

    private void applySnapshot(SnapshotPrefix.Action a, WalEntry e, Transaction txn) {
        prefixRevision = Math.max(prefixRevision, e.revision());
        if (a == SnapshotPrefix.Action.MARKER) {
            prefix.marker(e.revision(), countFrom(values.read(e.valueOffset(), 8)));
            compactRevision = e.revision();
            revision = e.revision();
        } else {
            lastSnapshotKey = e.key();
            KeyState s = keys.getOrCreate(e.key());
            set(s, e, e.createRevision(), e.version());
            listener.recordApplied(e.offset(), e.revision(), e.isDelete(), s);
            if (!prefix.hasMarker()) revision = Math.max(revision, e.revision());
        }
        records++;
        transactions++;
        listener.applied(txn, keys);
    }

    /** Decodes a marker value (u64 little-endian). */
    public static long countFrom(byte[] value) {
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private void apply(WalEntry e) {
        records++;
        if (e.lease() > maxLeaseSeen) maxLeaseSeen = e.lease();
        KeyState s = keys.getOrCreate(e.key());
        boolean delete = e.isDelete();
        long expectCreate = Rules.expectedCreateRevision(s.live, s.createRevision, e.revision());
        long expectVersion = Rules.expectedVersion(s.live, s.version);
        DamageKind broken = options.deriveVersions && !delete ? null
                : Rules.broken(delete, s.live, s.createRevision, s.version, e.revision(), e.createRevision(), e.version());
        if (broken != null) {
            Finding f = new Finding(broken, e.offset(), e.length(), e.revision(), 0, "key " + dev.walkit.format.KeyQuote.quote(e.key()) + ": "
                    + (broken == DamageKind.DELETE_OF_ABSENT_KEY ? "DELETE of a key that is not live"
                    : "PUT with create_revision " + e.createRevision() + ", version " + e.version() + "; expected " + expectCreate + ", "
                    + expectVersion), e.key());
            finding(f);
            keptBreak(f, e.key());
        }
        if (delete) {
            tombstone(s, e.revision(), e.offset());
        } else if (options.deriveVersions) {
            set(s, e, expectCreate, expectVersion);
        } else {
            set(s, e, e.createRevision(), e.version());
        }
        listener.recordApplied(e.offset(), e.revision(), e.isDelete(), s);
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

    /**
     * Where a replay stopped, to go on from there over what a file grew by: its counts, revisions, the highest lease ID
     * seen and the snapshot prefix's state (the keys' states are the caller's to restore, {@link KeyIndex#restore}).
     * Only a replay with nothing pending or reported has one: every transaction applied, none dropped, no damage, no
     * finding, and ordinary transactions begun (the prefix closed).
     */
    public record Checkpoint(long records, long transactions, long ordinaryApplied, long revision, long firstRevision, long compactRevision,
                             long prefixRevision, long maxLeaseSeen, SnapshotPrefix.State prefix) {
    }

    /** This replay's {@link Checkpoint}, or null when it has none (something reported or pending). */
    public Checkpoint checkpoint() {
        if (damaged || !damage.isEmpty() || !findingCounts.isEmpty() || !pendingDrops.isEmpty() || droppedAhead != 0 || highestDropped != 0
                || keptBreaks != 0 || ordinaryApplied == 0 || !prefix.closed() || options.deriveVersions || options.stopAtFirstDamage
                || options.toRevision != Long.MAX_VALUE) {
            return null;
        }
        return new Checkpoint(records, transactions, ordinaryApplied, revision, firstRevision, compactRevision, prefixRevision, maxLeaseSeen,
                prefix.state());
    }

    /** Goes on from {@code c} (a new replay, its keys restored as {@code c}'s replay left them). */
    public void resume(Checkpoint c) {
        if (transactions != 0 || records != 0) throw new IllegalStateException("a replay resumes before it reads");
        records = c.records();
        transactions = c.transactions();
        ordinaryApplied = c.ordinaryApplied();
        revision = c.revision();
        firstRevision = c.firstRevision();
        compactRevision = c.compactRevision();
        prefixRevision = c.prefixRevision();
        maxLeaseSeen = c.maxLeaseSeen();
        prefix.restore(c.prefix());
    }

    /** Call once after the last item: closes a snapshot prefix that the log ended inside. */
    public void end(long fileSize) {
        prefix.close(fileSize, report);
        ended = true;
    }

    /** Set by {@link #end}: the state no longer changes, so its lease metadata is made once ({@link #leases(long)}). */
    private boolean ended;
    private LeaseMetadata leases;

    public KeyIndex keys() {
        return keys;
    }

    public List<DamageSpan> damage() {
        return damage;
    }

    public List<Finding> findings() {
        return findings;
    }

    /** Every finding, kept in the list or not. */
    public long findingTotal() {
        long n = 0;
        for (int c : findingCounts.values()) n += c;
        return n;
    }

    public Map<DamageKind, Integer> findingCounts() {
        return findingCounts;
    }

    /** Ordinary transactions applied (the snapshot prefix not counted): {@link RevisionAccount}. */
    public long ordinaryApplied() {
        return ordinaryApplied;
    }

    /** Transactions dropped whose revision was ahead of the last applied one (not a repeat): {@link RevisionAccount}. */
    public long droppedAhead() {
        return droppedAhead;
    }

    /** The highest revision read, applied or dropped. */
    public long topRevision() {
        return Math.max(revision, highestDropped);
    }

    /** A dropped transaction, counted when its revision is ahead of the last applied one (a regression or a duplicate is not a revision of its own). */
    private void dropped(Transaction txn, DropReason why) {
        countDropped(txn.revision());
        listener.dropped(txn, why);
    }

    private void countDropped(long rev) {
        if (rev > revision && pendingDrops.add(rev)) {
            droppedAhead++;
            highestDropped = Math.max(highestDropped, rev);
        }
    }

    /**
     * An ordinary transaction of {@code rev} was applied: a dropped one of the same revision (an incomplete first
     * try, then the whole transaction) is not a revision dropped; those below are settled as dropped.
     */
    private void appliedRevision(long rev) {
        if (pendingDrops.isEmpty()) return;
        if (pendingDrops.remove(rev)) droppedAhead--;
        pendingDrops.headSet(rev).clear();
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

    /**
     * The highest revision the applied snapshot prefix stands for: its marker's compact revision, or, when the marker
     * was lost, its records' highest mod_revision; 0 without a prefix. History before it is gone: no state at an
     * earlier revision can be rebuilt.
     */
    public long prefixRevision() {
        return prefixRevision;
    }

    /** Lease metadata with the default conservative TTL. */
    public LeaseMetadata leases() {
        return leases(LeaseMetadata.DEFAULT_TTL_SECONDS);
    }

    public LeaseMetadata leases(long ttlSeconds) {
        // Every key's state is walked: after the end, once (the account counts them, the report names them).
        if (leases != null && leases.ttlSeconds() == ttlSeconds) return leases;
        LeaseMetadata m = LeaseMetadata.rebuild(keys, maxLeaseSeen, ttlSeconds);
        if (ended) leases = m;
        return m;
    }
}
