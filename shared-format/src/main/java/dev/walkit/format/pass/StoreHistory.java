package dev.walkit.format.pass;

import dev.walkit.format.DamageKind;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LegacyV1;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.bbolt.BoltDamage;
import dev.walkit.format.bbolt.BoltMeta;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;
import dev.walkit.format.kine.KineCheck;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.account.Store;
import dev.walkit.format.account.WalKeys;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.format.replay.Rules;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The pass's read-only history of a store ({@link Pass#history}), keyed by bytes: the store loaded once: the replayed state, and per key the history of its applied
 * records as (file offset, revision) pairs — values are read back from the file by offset, so the
 * heap holds keys and offsets, never values. Also the damage (located between revisions), the
 * findings, the transactions by revision, and the transactions dropped by replay.
 */
public final class StoreHistory implements Closeable, Tallies {
    /** Applied records of one key, oldest first, read out of the chain: offsets and revisions (negative revision: a DELETE). */
    static final class History {
        final long[] offsets;
        final long[] revisions;
        final int size;

        History(int size) {
            this.offsets = new long[size];
            this.revisions = new long[size];
            this.size = size;
        }

        long revision(int i) {
            return Math.abs(revisions[i]);
        }

        boolean isDelete(int i) {
            return revisions[i] < 0;
        }

        /** Index of the last record with revision <= rev, or -1. */
        int at(long rev) {
            int lo = 0;
            int hi = size - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (revision(mid) <= rev) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found;
        }
    }

    private final Source source;
    private final WalFile file;
    private final WalFormat format;
    /** The keys with a history: found by bytes, listed in byte order. */
    private final HistoryKeys keys;
    /** Every applied record, each key's history a chain through it. */
    private final AppliedColumns applied;
    /** What the replay ended with: its revision, compact revision, leases and finding counts. */
    private final Facts facts;
    /** The file is another store's WAL form made for this history alone (deleted at close); not a saved index's. */
    private final boolean privateForm;
    /** Where the replay stopped with nothing pending, or null ({@link #checkpoint()}). */
    private final Replayer.Checkpoint checkpoint;
    private final long resumedFrom;
    /** The account as the replay made it, before the findings beside the log: what a saved index keeps. */
    private final Account replayed;
    /** What the replay read, kept and lost: the one account every view prints. */
    private final Account account;
    private final Path leftoverCompaction;

    /**
     * What the replay ended with besides the keys and records: its last revision, its compact revision (-1: none), the
     * leases it rebuilt and how many findings of each kind the rules made.
     */
    record Facts(long revision, long compactRevision, dev.walkit.format.replay.LeaseMetadata leases, java.util.Map<DamageKind, Integer> findingCounts) {
    }

    /** What was opened: the store's kind and file, and for an etcd db what its own format says. */
    public record Source(Store.Kind kind, Path file, EtcdFacts etcd, KineHistoryWal.Summary kine, Store store) {
        public boolean isWal() {
            return kind == Store.Kind.WAL;
        }
    }

    /**
     * An etcd db's own facts (its WAL form is what the index replays): its meta in force, compact revision,
     * consistent index, leases with their granted TTLs, and its damage.
     */
    public record EtcdFacts(BoltMeta meta, long compactRevision, long consistentIndex, java.util.Map<Long, Long> leases,
                            List<BoltDamage> damage, EtcdDbWal.Summary summary) {
    }

    private StoreHistory(Source source, Path walPath, WalFile file, LongConsumer progress) throws IOException {
        this(source, walPath, file, progress, null);
    }

    /**
     * What a history saved at a healthy end ({@link SavedIndex}) holds to go on from there when its file grew: its keys,
     * its applied records, the replay's checkpoint and the account's first and last revisions, and where it ended.
     */
    record Resume(HistoryKeys keys, AppliedColumns applied, Replayer.Checkpoint checkpoint, Account account, long from) {
    }

    /** The file replayed whole, or with {@code resume} only from where a saved history ended. */
    private StoreHistory(Source source, Path walPath, WalFile file, LongConsumer progress, Resume resume) throws IOException {
        this.source = source;
        this.file = file;
        this.privateForm = !source.isWal();
        ReaderOptions ro = ReaderOptions.defaults();
        // What walverify calls not a WAL, every waldoctor command does too.
        // Another store's WAL form is empty when the store holds no revision it could read: that is no WAL error.
        WalFormat format = !source.isWal() && file.size() == 0 ? WalFormat.V2 : Wal.requireWal(file, ro.maxRecLen()).format();
        long step = Math.max(1, file.size() / 50);
        long[] nextReport = {resume == null ? step : resume.from() + step};
        AppliedRecords records = new AppliedRecords();
        AccountListener listener = new AccountListener() {
            @Override
            public void read(long offset, long revision) {
                super.read(offset, revision);
                if (progress != null && offset >= nextReport[0]) {
                    progress.accept(offset);
                    nextReport[0] = offset + step;
                }
            }

            @Override
            public void recordApplied(long offset, long revision, boolean delete, KeyState state) {
                // No second map, no string per record.
                HeapHistoryKeys.HistoryState hs = (HeapHistoryKeys.HistoryState) state;
                hs.last = records.add(offset, revision, delete, hs.last);
                hs.count++;
            }

            @Override
            public void applied(Transaction txn, KeyIndex keys) {
                if (!txn.isSnapshot()) records.transactionApplied(txn.records());
            }
        };
        KeyIndex index = HeapHistoryKeys.newIndex();
        Replay.Result res;
        HeapHistoryKeys.HistoryState[] restored = null;
        if (resume == null) {
            res = Replay.run(file, format, ro, Replayer.Options.defaults(), listener, index);
        } else {
            restored = restore(resume, index, records);
            listener.resume(resume.account().records(), resume.account().firstRevision(), resume.account().lastRevision());
            res = Replay.resume(file, ro, listener, index, resume.checkpoint(), resume.from());
        }
        this.format = res.format();
        Replayer state = res.state();
        this.keys = new HeapHistoryKeys(state.keys(), restored);
        this.applied = records;
        this.facts = new Facts(state.revision(), state.compactRevision(), state.leases(), state.findingCounts());
        this.checkpoint = this.format == WalFormat.V2 ? state.checkpoint() : null;
        this.resumedFrom = resume == null ? -1 : resume.from();
        Store store = source.store() != null ? source.store() : Store.wal(source.file(), file.size(), this.format.label());
        this.replayed = listener.account(store, state, file.size(), WalKeys.of(file, this.format));
        this.leftoverCompaction = source.isWal() ? Wal.leftoverCompaction(walPath) : null;
        this.account = besideTheLog(replayed, leftoverCompaction, file.size());
    }

    /**
     * The saved history's keys and applied records, into the replay's key index and columns, as its replay left them;
     * returns the restored keys in their saved (byte) order, which the history's sorted keys start from.
     */
    private static HeapHistoryKeys.HistoryState[] restore(Resume r, KeyIndex index, AppliedRecords records) {
        AppliedColumns a = r.applied();
        for (int id = 0, n = a.size(); id < n; id++) records.add(a.offset(id), a.revision(id), a.isDelete(id), a.previous(id));
        for (int t = 0, n = a.transactionCount(); t < n; t++) records.transactionStarts(a.transactionStart(t));
        HistoryKeys keys = r.keys();
        int n = keys.size();
        index.ensureCapacity(n + n / 8);
        HeapHistoryKeys.HistoryState[] order = new HeapHistoryKeys.HistoryState[n];
        for (int k = 0; k < n; k++) {
            HistoryKeys.Entry e = keys.get(k);
            int last = e.last();
            HeapHistoryKeys.HistoryState s = (HeapHistoryKeys.HistoryState) index.restore(e.key(), e.live(), e.createRevision(),
                    a.revision(last), e.version(), e.lease(), e.valueOffset(), e.valueLength(), a.offset(last));
            s.last = last;
            s.count = e.count();
            order[k] = s;
        }
        return order;
    }

    /** {@code wal} (a WAL file) replayed from where its saved history ended ({@code resume}): only the bytes it grew by are read. */
    static StoreHistory resumed(Path wal, WalFile file, Resume resume) throws IOException {
        return new StoreHistory(new Source(Store.Kind.WAL, wal, null, null, null), wal, file, null, resume);
    }

    /** Where this history's replay went on from a saved one (the file's size when it was saved), or -1: replayed whole or mapped. */
    public long resumedFrom() {
        return resumedFrom;
    }

    /** Where the replay stopped with nothing pending (a v2 log healthy to its end), to go on from when the file grows; or null. */
    Replayer.Checkpoint checkpoint() {
        return checkpoint;
    }

    /** A history whose replay was saved ({@link SavedIndex}): its keys and records mapped, its account as the replay made it. */
    StoreHistory(Source source, Path walPath, WalFile file, WalFormat format, HistoryKeys keys, AppliedColumns applied, Facts facts,
                 Account replayed) {
        this.checkpoint = null;
        this.resumedFrom = -1;
        this.privateForm = false;
        this.source = source;
        this.file = file;
        this.format = format;
        this.keys = keys;
        this.applied = applied;
        this.facts = facts;
        this.replayed = replayed;
        this.leftoverCompaction = source.isWal() ? Wal.leftoverCompaction(walPath) : null;
        this.account = besideTheLog(replayed, leftoverCompaction, file.size());
    }

    /** The account with the findings a pass makes beside the log (a leftover compaction): judged at every open, never saved. */
    private static Account besideTheLog(Account a, Path leftoverCompaction, long logBytes) {
        return leftoverCompaction == null ? a : a.withFinding(dev.walkit.format.pass.Pass.leftoverFinding(leftoverCompaction), logBytes);
    }

    /** Whether this history was mapped from a saved index ({@link SavedIndex}), not replayed. */
    public boolean indexed() {
        return !(applied instanceof AppliedRecords);
    }

    /** The account as the replay made it (without the findings beside the log). */
    Account replayedAccount() {
        return replayed;
    }

    HistoryKeys keys() {
        return keys;
    }

    AppliedColumns applied() {
        return applied;
    }

    Facts facts() {
        return facts;
    }

    /** Loads {@code path} (a WAL file or data directory); {@code progress} sees the offset now and then, or is null. */
    static StoreHistory load(Path path, LongConsumer progress) throws IOException {
        dev.walkit.format.pass.Pass.Input store = dev.walkit.format.pass.Pass.input(path);
        if (store.kind() == Store.Kind.ETCD_DB) return loadEtcdDb(store.file(), progress);
        if (store.kind() == Store.Kind.KINE) return loadKine(store.file(), progress);
        Path wal = store.file();
        WalFile f = WalFile.open(wal, RecordLayout.DEFAULT_MAX_REC_LEN);
        try {
            return new StoreHistory(new Source(Store.Kind.WAL, wal, null, null, null), wal, f, progress);
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** The v2 record at {@code offset}, decoded (null when it is not one). */
    public KeyValue recordAt(long offset) {
        return WalKeys.recordAt(file, offset);
    }

    /** As {@link #recordAt(long)}; without {@code value} the value is not copied (a keys-only answer). */
    public KeyValue recordAt(long offset, boolean value) {
        return WalKeys.recordAt(file, offset, value);
    }

    /**
     * The file ranges {@code [start, end)} of the values of records under {@code prefix} that overlap
     * {@code [from, to)}: for hexdump's redaction. v2: every record from the start of the transaction before
     * {@code from} is walked (dropped ones too), until a record that does not decode; v1: the applied records.
     */
    public List<long[]> valueSpans(byte[] p, long from, long to) {
        List<long[]> spans = new ArrayList<>();
        if (format == WalFormat.V2) {
            int i = lastTxnAtOrBefore(from);
            long pos = i >= 0 ? txnOffset(i) : 0;
            while (pos < to && pos + RecordLayout.OVERHEAD <= file.size()) {
                int recLen = file.intAt(pos + RecordLayout.REC_LEN_OFFSET);
                if (recLen < 0 || pos + RecordLayout.OVERHEAD + (long) recLen > file.size()) break;
                byte[] rec = file.read(pos, RecordLayout.OVERHEAD + recLen);
                ByteBuffer b = ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN);
                RecordView v = new RecordView().wrap(b, 0, pos);
                if (v.fields().error() != null) break;
                long end = pos + RecordLayout.OVERHEAD + recLen;
                if (end > from && Arrays.equals(v.fields().key(b), 0, Math.min(p.length, v.fields().keyLength()), p, 0, p.length)
                        && v.fields().keyLength() >= p.length) {
                    spans.add(new long[] {v.valueFileOffset(), v.valueFileOffset() + v.fields().valueLength()});
                }
                pos = end;
            }
        } else {
            byte[] pe = prefixEnd(p);
            for (int k = keys.lowerBound(p), past = pe.length == 0 ? keys.size() : keys.lowerBound(pe); k < past; k++) {
                for (int id = keys.get(k).last(); id >= 0; id = applied.previous(id)) {
                    long off = applied.offset(id);
                    long start = off + LegacyV1.HEADER_LENGTH + file.intAt(off + LegacyV1.KEY_LEN_OFFSET);
                    long end = start + file.intAt(off + LegacyV1.VAL_LEN_OFFSET);
                    if (start < to && end > from) spans.add(new long[] {start, end});
                }
            }
        }
        return spans;
    }

    /** The fields of the history record {@code i} of {@code key}: v2 decoded, v1 with derived fields. */
    KeyValue entry(History h, int i) {
        long off = h.offsets[i];
        if (format == WalFormat.V2) return recordAt(off);
        // v1: the value after the header and key (LegacyV1's layout); create_revision/version derived along the history by §5.
        long create = 0;
        long version = 0;
        for (int j = 0; j <= i; j++) {
            boolean live = version > 0;
            if (h.isDelete(j)) {
                create = 0;
                version = 0;
            } else {
                create = Rules.expectedCreateRevision(live, create, h.revision(j));
                version = Rules.expectedVersion(live, version);
            }
        }
        int keyLen = file.intAt(off + LegacyV1.KEY_LEN_OFFSET);
        int valLen = file.intAt(off + LegacyV1.VAL_LEN_OFFSET);
        byte[] key = file.read(off + LegacyV1.HEADER_LENGTH, keyLen);
        if (h.isDelete(i)) return KeyValue.delete(key, h.revision(i));
        return KeyValue.put(key, create, h.revision(i), version, file.read(off + LegacyV1.HEADER_LENGTH + keyLen, valLen), 0);
    }

    /** The key of the v1 record at {@code offset}. */
    byte[] v1Key(long offset) {
        return file.read(offset + LegacyV1.HEADER_LENGTH, file.intAt(offset + LegacyV1.KEY_LEN_OFFSET));
    }

    /** The key's state, when the store ever applied a record of it; else null. */
    HistoryKeys.Entry state(byte[] key) {
        return keys.find(key);
    }

    History history(byte[] key) {
        HistoryKeys.Entry s = state(key);
        return s == null ? null : history(s);
    }

    /** Whether the store ever applied a record of {@code key} (live now or not). */
    public boolean ever(byte[] key) {
        return state(key) != null;
    }

    /**
     * Whether {@code kv}'s version is a lower bound, not a fact: kine keeps no version, and where its compaction removed
     * the key's create row ({@link dev.walkit.format.kine.KineHistoryWal#LOWER_BOUND_VERSION}) the count cannot start
     * from it. A WAL's and an etcd db's versions are stored: exact.
     */
    public boolean versionIsLowerBound(KeyValue kv) {
        long compact = facts.compactRevision();
        if (source().kine() == null || compact <= 0 || kv.isDelete() || kv.createRevision() > compact) return false;
        History h = history(kv.key());
        if (h == null) return false;
        for (int i = 0; i < h.size; i++) if (h.revisions[i] == kv.createRevision()) return false; // its create row is kept
        return true;
    }

    /** The key's history read out of its chain, oldest first. */
    History history(HistoryKeys.Entry s) {
        History h = new History(s.count());
        int i = s.count();
        for (int id = s.last(); id >= 0; id = applied.previous(id)) {
            i--;
            h.offsets[i] = applied.offset(id);
            h.revisions[i] = applied.isDelete(id) ? -applied.revision(id) : applied.revision(id);
        }
        return h;
    }

    /** The key's applied record that holds at revision {@code rev} (the last at or before it), or -1: no copy, a walk back. */
    int appliedAt(HistoryKeys.Entry s, long rev) {
        int id = s.last();
        while (id >= 0 && applied.revision(id) > rev) id = applied.previous(id);
        return id;
    }

    /** True when the key is live at {@code rev}. */
    boolean liveAt(HistoryKeys.Entry s, long rev) {
        int id = appliedAt(s, rev);
        return id >= 0 && !applied.isDelete(id);
    }

    /** The key's state at revision {@code rev} (Long.MAX_VALUE: latest): null when absent. */
    public KeyValue get(byte[] key, long rev) {
        HistoryKeys.Entry s = state(key);
        if (s == null) return null;
        int id = appliedAt(s, rev);
        return id < 0 || applied.isDelete(id) ? null : at(s, id, true);
    }

    /** A key's state in a range answer: its fields, its value not read when only keys were asked for. */
    @FunctionalInterface
    public interface Visitor {
        /** Returns false to stop. */
        boolean visit(KeyValue kv);
    }

    /** One event of the history: a PUT or DELETE (kv, as the log wrote it) and the key's state before it, or null. */
    @FunctionalInterface
    public interface EventVisitor {
        /** Returns false to stop. */
        boolean event(KeyValue kv, KeyValue prev);
    }

    /**
     * Visits the keys of {@code [key, end)} live at {@code rev} in byte order ({@code end} null: {@code key} alone;
     * empty: every key from {@code key} on, as etcd's range end "\0"), and returns how many are live there.
     * {@code materialize} is how many to read and hand to {@code v} (0: count only); the count goes on past them.
     * Without {@code values} no value is read or copied (a keys-only answer). The one range every view asks: the shell's
     * {@code range}, the one-shot commands' JSON, and serve's Range.
     */
    public long range(byte[] key, byte[] end, long rev, long materialize, boolean values, Visitor v) {
        if (end == null) {
            HistoryKeys.Entry s = state(key);
            if (s == null) return 0;
            int id = appliedAt(s, rev);
            if (id < 0 || applied.isDelete(id)) return 0;
            if (materialize > 0) v.visit(at(s, id, values));
            return 1;
        }
        int past = end.length == 0 ? keys.size() : keys.lowerBound(end);
        long count = 0;
        boolean more = materialize > 0;
        for (int k = keys.lowerBound(key); k < past; k++) {
            HistoryKeys.Entry s = keys.get(k);
            int id = appliedAt(s, rev);
            if (id < 0 || applied.isDelete(id)) continue;
            count++;
            if (more && count <= materialize) more = v.visit(at(s, id, values)) && count < materialize;
        }
        return count;
    }

    /**
     * The range end that makes {@code [prefix, end)} every key starting with {@code prefix}, as etcd's
     * {@code GetPrefixRangeEnd}: the prefix with its last byte below 0xff raised by one; empty (every key on) when
     * there is none.
     */
    public static byte[] prefixEnd(byte[] prefix) {
        int n = prefix.length;
        while (n > 0 && prefix[n - 1] == (byte) 0xff) n--;
        if (n == 0) return new byte[0];
        byte[] past = Arrays.copyOf(prefix, n);
        past[n - 1]++;
        return past;
    }

    /**
     * Visits the events of revisions {@code from..to} in the order the store applied them, each with the key's state
     * before it; returns the revision after the last visited (where to go on), or {@code to + 1} when all were. Keys
     * outside {@code [key, end)} (end as in {@link #range}) are skipped. Below {@code compact} the history is compacted;
     * the compact revision's own writes survive in the snapshot prefix, as in etcd's history.
     */
    public long events(long from, long to, byte[] key, byte[] end, long compact, EventVisitor v) {
        if (from <= compact && compact > 0 && compact <= to) {
            int ordinary = transactionCount() > 0 ? applied.transactionStart(0) : applied.size();
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
            if (rev > to) return rev;
            KeyValue kv = record(id);
            if (!inRange(kv.key(), key, end)) continue;
            int p = applied.previous(id);
            KeyValue prev = p >= 0 && !applied.isDelete(p) ? record(p) : null;
            if (!v.event(kv, prev)) return rev + 1;
        }
        return to + 1;
    }

    /** Whether {@code k} is in {@code [key, end)} (end as in {@link #range}). */
    public static boolean inRange(byte[] k, byte[] key, byte[] end) {
        if (end == null) return Arrays.equals(k, key);
        if (Arrays.compareUnsigned(k, key) < 0) return false;
        return end.length == 0 || Arrays.compareUnsigned(k, end) < 0;
    }

    /** Index of the first ordinary transaction with a revision at or after {@code rev}, or -1. */
    private int firstTransactionAtOrAfter(long rev) {
        int lo = 0;
        int hi = transactionCount() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (txnRevision(mid) >= rev) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    /** A lease: its ID, the TTL it was granted, and the keys live on it at the revision asked. */
    public record Lease(long id, long grantedTtl, List<byte[]> keys) {
    }

    /**
     * The leases at revision {@code rev}, by ID in order: the store's own (an etcd db's lease bucket, with TTLs, keys or
     * not), else one per lease ID of a live key (kine's lease is the key's TTL in seconds; a WAL keeps no TTL: the
     * conservative one recovery grants).
     */
    public java.util.Map<Long, Lease> leases(long rev) {
        java.util.Map<Long, List<byte[]>> keysOf = new java.util.TreeMap<>();
        for (int k = 0, n = keys.size(); k < n; k++) {
            HistoryKeys.Entry s = keys.get(k);
            int id = appliedAt(s, rev);
            if (id < 0 || applied.isDelete(id)) continue;
            long lease = record(id).lease();
            if (lease != 0) keysOf.computeIfAbsent(lease, x -> new ArrayList<>()).add(s.key());
        }
        java.util.Map<Long, Lease> m = new java.util.LinkedHashMap<>();
        EtcdFacts etcd = source.etcd();
        if (etcd != null) {
            for (java.util.Map.Entry<Long, Long> e : new java.util.TreeMap<>(etcd.leases()).entrySet()) {
                m.put(e.getKey(), new Lease(e.getKey(), e.getValue(), List.copyOf(keysOf.getOrDefault(e.getKey(), List.of()))));
            }
        } else {
            long ttl = facts.leases().ttlSeconds();
            boolean kine = source.kind() == Store.Kind.KINE;
            for (java.util.Map.Entry<Long, List<byte[]>> e : keysOf.entrySet()) {
                m.put(e.getKey(), new Lease(e.getKey(), kine ? e.getKey() : ttl, List.copyOf(e.getValue())));
            }
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** What a key's state did between two revisions: how {@link #changes} names it. */
    public enum Change { CREATED, CHANGED, DELETED }

    /** Sees one key's change between two revisions. */
    @FunctionalInterface
    public interface ChangeVisitor {
        /**
         * {@code key} changed as {@code kind}: {@code before} is the revision of its state at the first revision (-1:
         * none), {@code after} that of its record at the second (-1: none). Returns false to stop.
         */
        boolean change(byte[] key, Change kind, long before, long after);
    }

    /** Every key whose state at {@code r2} differs from its state at {@code r1}, in key order. */
    public void changes(long r1, long r2, ChangeVisitor v) {
        for (int n = 0, size = keys.size(); n < size; n++) {
            HistoryKeys.Entry k = keys.get(n);
            int i1 = appliedAt(k, r1);
            int i2 = appliedAt(k, r2);
            boolean live1 = i1 >= 0 && !applied.isDelete(i1);
            boolean live2 = i2 >= 0 && !applied.isDelete(i2);
            long before = i1 >= 0 ? applied.revision(i1) : -1;
            long after = i2 >= 0 ? applied.revision(i2) : -1;
            Change c = !live1 && live2 ? Change.CREATED : live1 && !live2 ? Change.DELETED : live1 && i1 != i2 ? Change.CHANGED : null;
            if (c != null && !v.change(k.key(), c, before, after)) return;
        }
    }

    /** Sees a key the store ever wrote: its bytes, how many of its records were applied, whether it is live at the end and its value's length. */
    @FunctionalInterface
    public interface KeyVisitor {
        void key(byte[] key, int writes, boolean live, int valueLength);
    }

    /** Every key with an applied record or live at the end, in no order (no sort, no copy): for a report's tallies. */
    @Override
    public void forEachKey(KeyVisitor v) {
        keys.forEach(h -> v.key(h.key(), h.count(), h.live(), h.valueLength()));
    }

    /** The revision of every applied record, in the order applied. */
    @Override
    public void forEachAppliedRevision(java.util.function.LongConsumer v) {
        for (int id = 0, n = applied.size(); id < n; id++) v.accept(applied.revision(id));
    }

    /** The keys live at the end on lease {@code id}, in key order. */
    public List<byte[]> liveOnLease(long id) {
        List<byte[]> out = new ArrayList<>();
        for (int k = 0, n = keys.size(); k < n; k++) {
            HistoryKeys.Entry e = keys.get(k);
            if (e.live() && e.lease() == id) out.add(e.key());
        }
        return out;
    }

    /** Every key the store ever had under {@code prefix} (live or deleted), in byte order: a view, no copy. */
    public List<byte[]> keys(byte[] prefix) {
        int from = keys.lowerBound(prefix);
        byte[] end = prefixEnd(prefix);
        int to = end.length == 0 ? keys.size() : keys.lowerBound(end);
        return new java.util.AbstractList<>() {
            @Override
            public byte[] get(int i) {
                return keys.get(from + java.util.Objects.checkIndex(i, to - from)).key();
            }

            @Override
            public int size() {
                return to - from;
            }
        };
    }

    /** Every put and delete of {@code key}, oldest first; null for a key the store never had. */
    public List<KeyValue> events(byte[] key) {
        History h = history(key);
        if (h == null) return null;
        List<KeyValue> out = new ArrayList<>(h.size);
        for (int i = 0; i < h.size; i++) out.add(entry(h, i));
        return out;
    }

    /** The applied record {@code id} of key {@code s} as it holds; without {@code values} its value is not copied (keys only). */
    private KeyValue at(HistoryKeys.Entry s, int id, boolean values) {
        if (format == WalFormat.V2) return recordAt(applied.offset(id), values);
        History h = history(s);
        long off = applied.offset(id);
        for (int i = 0; i < h.size; i++) {
            if (h.offsets[i] == off) return entry(h, i);
        }
        throw new IllegalStateException("record at " + off + " is not in its key's history");
    }

    /** The applied record {@code id}, for events: a DELETE as the log wrote it (key and revision). */
    private KeyValue record(int id) {
        long off = applied.offset(id);
        if (format == WalFormat.V2) return recordAt(off);
        return at(keys.find(v1Key(off)), id, true);
    }

    public WalFile file() {
        return file;
    }

    public WalFormat format() {
        return format;
    }

    /** The last revision applied. */
    @Override
    public long revision() {
        return facts.revision();
    }

    /** The compact revision the replay holds (-1: none). */
    @Override
    public long compactRevision() {
        return facts.compactRevision();
    }

    /** The leases the replay rebuilt: keys by lease, the next lease ID, the TTL granted. */
    @Override
    public dev.walkit.format.replay.LeaseMetadata leaseMetadata() {
        return facts.leases();
    }

    /** How many findings of each kind the rules made (every one: the account's listing may be capped). */
    @Override
    public java.util.Map<DamageKind, Integer> findingCounts() {
        return facts.findingCounts();
    }

    public long records() {
        return account.records();
    }

    public List<DamageLocator.Located> damage() {
        return account.damage();
    }

    /** What the replay read, kept and lost: the one account every view prints. */
    @Override
    public Account account() {
        return account;
    }

    @Override
    public Path leftoverCompaction() {
        return leftoverCompaction;
    }

    public int transactionCount() {
        return applied.transactionCount();
    }

    /** Index of the ordinary transaction with this revision, or -1. */
    public int txnIndex(long revision) {
        int lo = 0;
        int hi = applied.transactionCount() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long r = txnRevision(mid);
            if (r < revision) lo = mid + 1;
            else if (r > revision) hi = mid - 1;
            else return mid;
        }
        return -1;
    }

    /** Index of the last ordinary transaction that starts at or before file offset {@code offset}, or -1. */
    public int lastTxnAtOrBefore(long offset) {
        int lo = 0;
        int hi = applied.transactionCount() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (txnOffset(mid) <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    public long txnOffset(int i) {
        return applied.offset(applied.transactionStart(i));
    }

    /** The records of transaction {@code i}: those applied from its first on with its revision. */
    public int txnRecords(int i) {
        int first = applied.transactionStart(i);
        long rev = applied.revision(first);
        int id = first;
        while (id < applied.size() && applied.revision(id) == rev) id++;
        return id - first;
    }

    /** The keys transaction {@code i} wrote (a v2 log's; none for another form). */
    public List<byte[]> txnKeys(int i) {
        if (format != WalFormat.V2) return List.of();
        int first = applied.transactionStart(i);
        List<byte[]> out = new java.util.ArrayList<>();
        for (int k = 0, n = txnRecords(i); k < n; k++) {
            KeyValue kv = recordAt(applied.offset(first + k));
            if (kv != null) out.add(kv.key());
        }
        return out;
    }

    public long txnRevision(int i) {
        return applied.revision(applied.transactionStart(i));
    }

    @Override
    public void close() throws IOException {
        awaitSaved();
        try {
            file.close();
        } finally {
            if (privateForm) {
                java.nio.file.Files.deleteIfExists(file.path());
                java.nio.file.Files.deleteIfExists(file.path().getParent());
            }
        }
    }

    /** The save of this history's index, not yet started; null when none is due or it has started. */
    private Runnable save;
    /** The thread saving this history's index, or null. */
    private Thread saver;

    /**
     * Starts saving this history's index ({@link Pass#history(Path, LongConsumer, SavedIndex.Cache)} when the file was read
     * whole) on a thread of its own, beside the answers: a command calls it once its first answer is out (serve once its
     * port is open, the shell once its prompt is shown), so that the save does not delay it. Nothing when none is due.
     */
    public synchronized void startSaving() {
        if (save == null) return;
        Thread t = new Thread(save, "walkit-index-save");
        t.setDaemon(true);
        save = null;
        saver = t;
        t.start();
    }

    /** Waits until this history's index is saved (started now if it was not): a process stopping keeps its first open's work. */
    public void awaitSaved() {
        startSaving();
        Thread t;
        synchronized (this) {
            t = saver;
        }
        if (t == null) return;
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The index save due for this history, started by {@link #startSaving} or at the latest by {@link #close}. */
    synchronized void saving(Runnable save) {
        this.save = save;
    }

    /** Writes a store's history as a WAL at the given path and says what it found ({@link Source}). */
    @FunctionalInterface
    private interface Conversion {
        Source write(Path wal) throws IOException;
    }

    /**
     * A store other than the WAL: its history written as a WAL to a private file in the temporary directory
     * (deleted on close; the store is only read), then replayed as any log is.
     */
    private static StoreHistory loadConverted(Conversion conversion, LongConsumer progress) throws IOException {
        Path tmp = java.nio.file.Files.createTempDirectory("walkit-store-");
        Path wal = tmp.resolve(Wal.WAL_FILE);
        tmp.toFile().deleteOnExit();
        wal.toFile().deleteOnExit();
        try {
            Source source = conversion.write(wal);
            WalFile f = WalFile.open(wal, RecordLayout.DEFAULT_MAX_REC_LEN);
            try {
                return new StoreHistory(source, wal, f, progress);
            } catch (IOException | RuntimeException x) {
                f.close();
                throw x;
            }
        } catch (IOException | RuntimeException x) {
            java.nio.file.Files.deleteIfExists(wal);
            java.nio.file.Files.deleteIfExists(tmp);
            throw x;
        }
    }

    private static StoreHistory loadEtcdDb(Path db, LongConsumer progress) throws IOException {
        return loadConverted(wal -> {
            try (EtcdDb e = EtcdDb.openDatabase(db)) {
                EtcdDbWal.Summary sum = EtcdDbWal.write(e, wal);
                return new Source(Store.Kind.ETCD_DB, db, new EtcdFacts(e.bolt().meta(), e.compactRevision(), e.consistentIndex(), e.leases(), e.damage(), sum), null,
                        e.store(db, sum.revisions()));
            }
        }, progress);
    }

    /** kine's state.db, read from a private copy: its rows as the WAL's revisions (kine keeps no version: counted). */
    private static StoreHistory loadKine(Path db, LongConsumer progress) throws IOException {
        return loadConverted(wal -> {
            try (KineDb k = KineDb.open(db, "waldoctor")) {
                // SQLite's own check beside the rows' read, as walverify makes it: one account of the db's damage.
                java.util.concurrent.CompletableFuture<List<String>> check = KineCheck.quickCheckAsync(k);
                KineHistoryWal.Summary sum;
                try {
                    sum = KineHistoryWal.write(k, wal);
                } finally {
                    check.join();
                }
                return new Source(Store.Kind.KINE, db, null, sum, sum.store(db, java.nio.file.Files.size(db), KineCheck.damage(k, check.join(), sum), k.wal().facts()));
            }
        }, progress);
    }

    @Override
    public Source source() {
        return source;
    }
}
