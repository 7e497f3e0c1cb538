package dev.walkit.format.replay;

import dev.walkit.format.Flags;
import dev.walkit.format.KvFields;
import dev.walkit.format.ReadResult;
import dev.walkit.format.RecordView;
import dev.walkit.format.scan.SplitScan;

import java.nio.ByteBuffer;

/**
 * Replay of a log that has nothing to report: the fast path of walverify's semantic level and of
 * walrecover's read-back of its own output ({@link #forDigest()}), run by {@link CleanScan}. It applies the
 * rules of {@link Replayer} (docs/format.md §5, §6) to records as they are read, with no allocation
 * per record ({@link KeyTable}), and stops at the first thing {@link Replayer} would report or drop:
 * damage, an incomplete transaction, a revision not above the last, a create_revision/version or
 * DELETE rule broken, a snapshot prefix out of place, out of order or short. It names what it met
 * ({@link #irregularity()}) but does not describe it as a finding: the caller then replays with
 * {@link Replayer}, the one place findings are made, so a log with something to report costs up to
 * two passes and a clean one costs a light one.
 *
 * <p>Records of a transaction are applied as they come, before its closing record: if the closing
 * record never comes, the transaction was incomplete, which ends the fast path anyway.
 *
 * <p>A part of a log that starts at a transaction boundary in the middle ({@link #part()}) cannot
 * check a key's first record there, nor its first transaction's revision: it keeps them, and
 * {@link #join} checks them against the state the earlier part left.
 */
public final class CleanReplay implements SplitScan.Part {
    private final boolean part;
    private final boolean keepsValues;
    private final KeyTable keys;
    private String irregularity;
    private boolean partOnly;

    private long records;
    private long firstRecordRevision = -1;
    private long lastRecordRevision = -1;
    private long maxRecordRevision = -1;
    private long transactions;
    /** Of {@link #transactions}, the snapshot prefix's records (its marker's too). */
    private long prefixRecords;
    private long revision;
    private long firstTxnRevision = -1;
    private long openTxn = -1;
    private final SnapshotPrefix prefix = new SnapshotPrefix();
    /** Set by {@link #prefix} when its rules report anything: the light replay stops there. */
    private final SnapshotPrefix.Report stop = (kind, offset, length, detail, effect, inPrefix) -> irregular(detail + " at offset " + offset);
    private int lastSnapshotRef = -1;
    // After a join: the key counts of both parts together.
    private long joinedLive;
    private long joinedKeys;
    private CleanReplay joinedWith;

    private CleanReplay(boolean part, boolean keepsValues) {
        this.part = part;
        this.keepsValues = keepsValues;
        this.keys = new KeyTable(part, keepsValues);
    }

    /** For a whole log, or the first part of one. */
    public static CleanReplay whole() {
        return new CleanReplay(false, false);
    }

    /** For a later part of a log, starting at a transaction boundary. */
    public static CleanReplay part() {
        return new CleanReplay(true, false);
    }

    /**
     * For the {@link StateDigest} of a whole log (a recovery output read back): the same rules, the same stop
     * points, as {@link #whole()} (so as walverify's semantic level), keeping where each live key's value is.
     */
    public static CleanReplay forDigest() {
        return new CleanReplay(false, true);
    }

    /** The same kind of replay, for a later part of the log. */
    public CleanReplay newPart() {
        return new CleanReplay(true, keepsValues);
    }

    /** The next result read: a valid record is applied ({@link #accept}), damage ends the fast path. */
    @Override
    public boolean take(ReadResult x) {
        return x instanceof RecordView v ? accept(v) : damage(x.offset());
    }

    /** Applies the next valid record; false (and {@link #irregularity()} set) when the fast path ends. */
    public boolean accept(RecordView v) {
        int counted = countedRef;
        countedRef = -1;
        if (irregularity != null) return false;
        long rev = v.revision();
        int flags = v.flags();
        records++;
        if (firstRecordRevision < 0) firstRecordRevision = rev;
        lastRecordRevision = rev;
        if (rev > maxRecordRevision) maxRecordRevision = rev;
        KvFields f = v.fields();
        if (Flags.isSnapshot(flags)) return snapshot(v, f, rev, flags);
        if (openTxn >= 0) {
            if (rev != openTxn) return irregular("incomplete transaction before offset " + v.offset());
        } else {
            if (!prefix.close(v.offset(), stop)) return false;
            if (!Rules.revisionAdvances(rev, revision, transactions > 0 || prefix.hasMarker())) {
                return irregular("revision regression at offset " + v.offset());
            }
            if (firstTxnRevision < 0) firstTxnRevision = rev;
        }
        ByteBuffer buf = v.buffer();
        int ref = counted >= 0 ? counted : keys.find(buf, f.keyStart(), f.keyLength());
        boolean delete = Flags.isDelete(flags);
        if (part && keys.inserted()) {
            keys.first(ref, delete, rev, f.createRevision(), f.version());
            if (delete) {
                keys.delete(ref);
            } else {
                keys.put(ref, f.createRevision(), f.version());
                if (keepsValues) keys.value(ref, rev, f.lease(), v.valueFileOffset(), f.valueLength());
            }
        } else {
            boolean live = keys.live(ref);
            if (!Rules.holds(delete, live, live ? keys.createRevision(ref) : 0, live ? keys.version(ref) : 0, rev,
                    f.createRevision(), f.version())) {
                return irregular((delete ? "delete of an absent key" : "version mismatch") + " at offset " + v.offset());
            }
            if (delete) {
                keys.delete(ref);
                return closeRecord(flags, rev);
            }
            keys.put(ref, f.createRevision(), f.version());
            if (keepsValues) keys.value(ref, rev, f.lease(), v.valueFileOffset(), f.valueLength());
        }
        return closeRecord(flags, rev);
    }

    /** The record applied: its transaction goes on (TXN_CONT) or is complete. */
    private boolean closeRecord(int flags, long rev) {
        if (Flags.isTxnCont(flags)) {
            openTxn = rev;
        } else {
            openTxn = -1;
            transactions++;
            revision = rev;
        }
        return true;
    }

    private boolean snapshot(RecordView v, KvFields f, long rev, int flags) {
        if (part) {
            // Whether it is in place depends on the part before: not this part's to say.
            partOnly = true;
            return irregular("a snapshot record in a later part, at offset " + v.offset());
        }
        // A snapshot record inside a transaction: the rules drop it (Replayer reports it).
        if (openTxn >= 0 || Flags.isTxnCont(flags)) return irregular("snapshot record inside a transaction at offset " + v.offset());
        ByteBuffer buf = v.buffer();
        boolean emptyKey = f.keyLength() == 0;
        boolean ascending = emptyKey || lastSnapshotRef < 0 || keys.compare(lastSnapshotRef, buf, f.keyStart(), f.keyLength()) < 0;
        // A duplicated key is also not ascending: the light replay stops at either.
        SnapshotPrefix.Action a = prefix.lone(v.offset(), v.length(), rev, emptyKey, f.valueLength(), transactions == 0, false,
                ascending, stop);
        if (irregularity != null || a == SnapshotPrefix.Action.DROP) return irregular("snapshot record out of place at offset " + v.offset());
        if (a == SnapshotPrefix.Action.MARKER) {
            prefix.marker(rev, buf.getLong(f.valueStart()));
            revision = rev;
            transactions++;
            prefixRecords++;
            return true;
        }
        int ref = keys.find(buf, f.keyStart(), f.keyLength());
        keys.put(ref, f.createRevision(), f.version());
        if (keepsValues) keys.value(ref, rev, f.lease(), v.valueFileOffset(), f.valueLength());
        lastSnapshotRef = ref;
        transactions++;
        prefixRecords++;
        return true;
    }

    /**
     * The version of a put of {@code key} whose store keeps none ({@link dev.walkit.format.RecordSink#countsVersions}),
     * by the rules: 1 at a create ({@code create == mod}) or when the key is not live, else one more than the key's.
     * A whole log's replay only: the key is entered here if new, which a later part would take for its first record.
     * The next record given to {@link #accept} must be this put (its key is not looked up again).
     */
    long countedVersion(byte[] key, long create, long mod) {
        int ref = keys.find(ByteBuffer.wrap(key).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0, key.length);
        countedRef = ref; // the next record accepted is this key's: found once
        return Rules.countedVersion(create == mod, keys.live(ref), keys.version(ref));
    }

    /** The key {@link #countedVersion} found, for the record {@link #accept} takes next; -1 when none. */
    private int countedRef = -1;

    /** Damage read: the fast path ends. */
    public boolean damage(long offset) {
        return irregular("damage at offset " + offset);
    }

    /** Call at the end of the log; false when it ends inside a transaction or a snapshot prefix. */
    public boolean end() {
        if (irregularity != null) return false;
        if (openTxn >= 0) return irregular("the log ends inside a transaction");
        return prefix.close(Long.MAX_VALUE, stop);
    }

    /** Stops the fast path from outside (the other part met something). */
    public void abandon(String why) {
        irregular(why);
    }

    private boolean irregular(String why) {
        if (irregularity == null) irregularity = why;
        return false;
    }

    /**
     * Checks {@code later} (a {@link #part()} read from where this one stopped to the end of the log) against
     * the state this one left, as one replay of the two would; on success this holds the state after both.
     * Then call {@link #end()}.
     */
    public boolean join(CleanReplay later) {
        if (irregularity != null) return false;
        if (!later.end()) return irregular(later.irregularity);
        if (openTxn >= 0) return irregular("a part ends inside a transaction");
        if (later.transactions > 0) {
            if (!prefix.close(Long.MAX_VALUE, stop)) return false;
            if (!Rules.revisionAdvances(later.firstTxnRevision, revision, transactions > 0 || prefix.hasMarker())) {
                return irregular("revision regression at the join");
            }
        }
        KeyTable b = later.keys;
        long live = keys.liveCount();
        long added = 0;
        for (int s = b.first(); s >= 0; s = b.next(s)) {
            int r = checkKey(b, s);
            if (r == BROKEN_DELETE) return irregular("delete of an absent key after the join");
            if (r == BROKEN_VERSION) return irregular("version mismatch after the join");
            live += (r & LIVE_NOW) - ((r & WAS_LIVE) >> 1);
            added += (r & ADDED) >> 2;
        }
        joinedLive = live;
        joinedKeys = keys.size() + added;
        records += later.records;
        if (later.records > 0) {
            if (firstRecordRevision < 0) firstRecordRevision = later.firstRecordRevision;
            lastRecordRevision = later.lastRecordRevision;
            maxRecordRevision = Math.max(maxRecordRevision, later.maxRecordRevision);
        }
        transactions += later.transactions;
        if (later.transactions > 0) revision = later.revision;
        if (firstTxnRevision < 0) firstTxnRevision = later.firstTxnRevision;
        joinedWith = later;
        return true;
    }

    private static final int LIVE_NOW = 1;
    private static final int WAS_LIVE = 2;
    private static final int ADDED = 4;
    private static final int BROKEN_DELETE = 8;
    private static final int BROKEN_VERSION = 16;

    /**
     * The later part's key {@code s} checked against this part's state: {@link #LIVE_NOW}, {@link #WAS_LIVE}
     * and {@link #ADDED} bits, or the rule it breaks. A method of its own, called once a key, so that it is
     * compiled after a few hundred keys; as the body of the join's loop it ran interpreted until the loop
     * had gone round tens of thousands of times (on-stack replacement).
     */
    private int checkKey(KeyTable b, int s) {
        int a = keys.lookup(b, s);
        boolean wasLive = a >= 0 && keys.live(a);
        if (!Rules.holds(b.firstDelete(s), wasLive, wasLive ? keys.createRevision(a) : 0, wasLive ? keys.version(a) : 0,
                b.firstRevision(s), b.firstCreateRevision(s), b.firstVersion(s))) {
            return b.firstDelete(s) ? BROKEN_DELETE : BROKEN_VERSION;
        }
        return (b.live(s) ? LIVE_NOW : 0) | (wasLive ? WAS_LIVE : 0) | (a < 0 ? ADDED : 0);
    }

    /** The store's revision after the replay: the last transaction's, or the compact revision (as {@link Replayer#revision()}). */
    public long revision() {
        return revision;
    }

    /** The {@link StateDigest} of the state replayed ({@link #forDigest()} only), values read back from {@code values}. */
    public String digest(StateDigest.Source values) {
        if (!keepsValues) throw new IllegalStateException("not a replay for a digest");
        StateDigest.Builder digest = new StateDigest.Builder();
        if (joinedWith == null) keys.addLive(digest);
        else keys.addLiveFollowedBy(joinedWith.keys, digest);
        return digest.digest(revision, values);
    }

    /** Whether the state is that of two parts joined ({@link #join}). */
    public boolean joined() {
        return joinedWith != null;
    }

    /**
     * Whether what ended this later part is one a replay of the whole log might take (a snapshot record,
     * in place if the prefix began before the part): the earlier part should then read on by itself.
     */
    public boolean endedAsAPart() {
        return partOnly;
    }

    /** What ended the fast path, or null while it holds. */
    public String irregularity() {
        return irregularity;
    }

    /** Records read (every record, as the damage map counts them). */
    public long records() {
        return records;
    }

    /** The revision of the first transaction applied after any snapshot prefix (as {@link Replayer#firstRevision()}), or -1. */
    public long firstTransactionRevision() {
        return firstTxnRevision;
    }

    public long firstRecordRevision() {
        return firstRecordRevision;
    }

    public long lastRecordRevision() {
        return lastRecordRevision;
    }

    public long maxRecordRevision() {
        return maxRecordRevision;
    }

    /** Ordinary transactions applied, the snapshot prefix not counted (as {@link Replayer#ordinaryApplied()}). */
    public long ordinaryTransactions() {
        return transactions - prefixRecords;
    }

    /** Where the revisions of a clean log went: every ordinary revision applied, the rest gaps the format allows. */
    public RevisionAccount revisionAccount() {
        return new RevisionAccount(compactRevision(), revision(), ordinaryTransactions(), 0, 0);
    }

    /** Applied transactions, each snapshot-prefix record counting as one (as {@link Replayer#transactions()}). */
    public long transactions() {
        return transactions;
    }

    /** The compact revision of the snapshot marker at offset 0, or 0 without one. */
    public long compactRevision() {
        return prefix.hasMarker() ? prefix.compactRevision() : 0;
    }

    public long liveCount() {
        return joinedWith != null ? joinedLive : keys.liveCount();
    }

    /** Keys ever seen that are not live (as {@link KeyIndex#tombstoneCount()}). */
    public long tombstoneCount() {
        return (joinedWith != null ? joinedKeys : keys.size()) - liveCount();
    }
}
