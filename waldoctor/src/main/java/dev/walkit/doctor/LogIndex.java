package dev.walkit.doctor;

import dev.walkit.format.DamageKind;
import dev.walkit.format.Finding;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The log loaded once for waldoctor: the replayed state, and per key the history of its applied
 * records as (file offset, revision) pairs — values are read back from the file by offset, so the
 * heap holds keys and offsets, never values. Also the damage (located between revisions), the
 * findings, the transactions by revision, and the transactions dropped by replay.
 */
public final class LogIndex implements Closeable {
    /** The replayed state of a key with its history: the history rides on replay's own key state. */
    static final class HistoryState extends KeyState {
        /** The key's last applied record in {@link AppliedRecords}, or -1 until one is applied. */
        int last = -1;
        /** How many of its records were applied. */
        int count;

        HistoryState(byte[] key) {
            super(key);
        }
    }

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
    private final Replayer state;
    /** Every applied record, each key's history a chain through it. */
    private final AppliedRecords applied = new AppliedRecords();
    /** The keys with a history in byte order, built on first use (range, diff, completion); get and history look up by hash. */
    private HistoryState[] sorted;
    /** What the replay read, kept and lost: the one account every view prints. */
    private final Account account;
    private final Path leftoverCompaction;

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

    private LogIndex(Source source, Path walPath, WalFile file, LongConsumer progress) throws IOException {
        this.source = source;
        this.file = file;
        this.leftoverCompaction = source.isWal() ? Wal.leftoverCompaction(walPath) : null;
        ReaderOptions ro = ReaderOptions.defaults();
        // What walverify calls not a WAL, every waldoctor command does too.
        // Another store's WAL form is empty when the store holds no revision it could read: that is no WAL error.
        WalFormat format = !source.isWal() && file.size() == 0 ? WalFormat.V2 : Wal.requireWal(file, ro.maxRecLen()).format();
        long step = Math.max(1, file.size() / 50);
        long[] nextReport = {step};
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
                HistoryState hs = (HistoryState) state;
                hs.last = applied.add(offset, revision, delete, hs.last);
                hs.count++;
            }

            @Override
            public void applied(Transaction txn, KeyIndex keys) {
                if (!txn.isSnapshot()) applied.transactionApplied(txn.records());
            }
        };
        Replay.Result res = Replay.run(file, format, ro, Replayer.Options.defaults(), listener, new KeyIndex(HistoryState::new));
        this.format = res.format();
        this.state = res.state();
        Store store = source.store() != null ? source.store() : Store.wal(source.file(), file.size(), this.format.label());
        Account a = listener.account(store, state, file.size(), WalKeys.of(file, this.format));
        if (leftoverCompaction != null) {
            a = a.withFinding(dev.walkit.format.pass.Pass.leftoverFinding(leftoverCompaction), file.size());
        }
        this.account = a;
    }

    /** Loads {@code path} (a WAL file or data directory); {@code progress} sees the offset now and then, or is null. */
    public static LogIndex load(Path path, LongConsumer progress) throws IOException {
        dev.walkit.format.pass.Pass.Input store = dev.walkit.format.pass.Pass.input(path);
        if (store.kind() == Store.Kind.ETCD_DB) return loadEtcdDb(store.file(), progress);
        if (store.kind() == Store.Kind.KINE) return loadKine(store.file(), progress);
        Path wal = store.file();
        WalFile f = WalFile.open(wal, RecordLayout.DEFAULT_MAX_REC_LEN);
        try {
            return new LogIndex(new Source(Store.Kind.WAL, wal, null, null, null), wal, f, progress);
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
    public List<long[]> valueSpans(String prefix, long from, long to) {
        List<long[]> spans = new ArrayList<>();
        byte[] p = dev.walkit.cli.KeyText.unquote(prefix);
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
            HistoryState[] keys = sortedKeys();
            for (int k = from(prefix), past = to(prefix); k < past; k++) {
                for (int id = keys[k].last; id >= 0; id = applied.previous(id)) {
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

    /** The key's state, when the log ever applied a record of it; else null. */
    HistoryState state(String key) {
        HistoryState s = (HistoryState) state.keys().get(dev.walkit.cli.KeyText.unquote(key));
        return s == null || s.last < 0 ? null : s;
    }

    History history(String key) {
        HistoryState s = state(key);
        return s == null ? null : history(s);
    }

    /**
     * Whether {@code kv}'s version is a lower bound, not a fact: kine keeps no version, and where its compaction removed
     * the key's create row ({@link dev.walkit.format.kine.KineHistoryWal#LOWER_BOUND_VERSION}) the count cannot start
     * from it. A WAL's and an etcd db's versions are stored: exact.
     */
    public boolean versionIsLowerBound(KeyValue kv) {
        long compact = state.compactRevision();
        if (source().kine() == null || compact <= 0 || kv.isDelete() || kv.createRevision() > compact) return false;
        History h = history(dev.walkit.cli.KeyText.quote(kv.key()));
        if (h == null) return false;
        for (int i = 0; i < h.size; i++) if (h.revisions[i] == kv.createRevision()) return false; // its create row is kept
        return true;
    }

    /** The key's history read out of its chain, oldest first. */
    History history(HistoryState s) {
        History h = new History(s.count);
        int i = s.count;
        for (int id = s.last; id >= 0; id = applied.previous(id)) {
            i--;
            h.offsets[i] = applied.offset(id);
            h.revisions[i] = applied.isDelete(id) ? -applied.revision(id) : applied.revision(id);
        }
        return h;
    }

    /** The key's applied record that holds at revision {@code rev} (the last at or before it), or -1: no copy, a walk back. */
    int appliedAt(HistoryState s, long rev) {
        int id = s.last;
        while (id >= 0 && applied.revision(id) > rev) id = applied.previous(id);
        return id;
    }

    /** True when the key is live at {@code rev}. */
    boolean liveAt(HistoryState s, long rev) {
        int id = appliedAt(s, rev);
        return id >= 0 && !applied.isDelete(id);
    }

    AppliedRecords applied() {
        return applied;
    }

    /** The key's state at revision {@code rev} (Long.MAX_VALUE: latest): null when absent. */
    public KeyValue get(String key, long rev) {
        History h = history(key);
        if (h == null) return null;
        int i = h.at(rev);
        if (i < 0 || h.isDelete(i)) return null;
        return entry(h, i);
    }

    /**
     * The keys under {@code prefix} live at revision {@code rev} (Long.MAX_VALUE: latest), in key order;
     * with {@code limit > 0}, at most {@code limit + 1} of them, so that a caller can tell more follow.
     */
    public List<String> liveKeys(String prefix, long rev, long limit) {
        List<String> out = new ArrayList<>();
        HistoryState[] keys = sortedKeys();
        for (int k = from(prefix), end = to(prefix); k < end; k++) {
            if (!liveAt(keys[k], rev)) continue;
            out.add(dev.walkit.cli.KeyText.quote(keys[k].key()));
            if (limit > 0 && out.size() > limit) break;
        }
        return out;
    }

    /** As {@link #liveKeys}, of every key from {@code key} on (etcdctl's --from-key). */
    public List<String> liveKeysFrom(String key, long rev, long limit) {
        List<String> out = new ArrayList<>();
        HistoryState[] keys = sortedKeys();
        for (int k = from(key); k < keys.length; k++) {
            if (!liveAt(keys[k], rev)) continue;
            out.add(dev.walkit.cli.KeyText.quote(keys[k].key()));
            if (limit > 0 && out.size() > limit) break;
        }
        return out;
    }

    /** How many keys from {@code key} on are live at {@code rev}. */
    public long liveCountFrom(String key, long rev) {
        long n = 0;
        HistoryState[] keys = sortedKeys();
        for (int k = from(key); k < keys.length; k++) {
            if (liveAt(keys[k], rev)) n++;
        }
        return n;
    }

    /** How many keys under {@code prefix} are live at {@code rev}. */
    public long liveCount(String prefix, long rev) {
        long n = 0;
        HistoryState[] keys = sortedKeys();
        for (int k = from(prefix), end = to(prefix); k < end; k++) {
            if (liveAt(keys[k], rev)) n++;
        }
        return n;
    }

    /** Every key the log ever had under {@code prefix} (live or deleted), in byte order. */
    public List<String> keys(String prefix) {
        HistoryState[] keys = sortedKeys();
        List<String> out = new ArrayList<>();
        for (int k = from(prefix), end = to(prefix); k < end; k++) out.add(dev.walkit.cli.KeyText.quote(keys[k].key()));
        return out;
    }

    /** Every put and delete of {@code key}, oldest first; null for a key the log never had. */
    public List<KeyValue> events(String key) {
        History h = history(key);
        if (h == null) return null;
        List<KeyValue> out = new ArrayList<>(h.size);
        for (int i = 0; i < h.size; i++) out.add(entry(h, i));
        return out;
    }

    /** Every key with an applied record, in byte order (unsigned, as etcd orders keys): sorted on first use. */
    synchronized HistoryState[] sortedKeys() {
        if (sorted == null) {
            List<KeyState> all = state.keys().sorted();
            int n = 0;
            HistoryState[] a = new HistoryState[all.size()];
            for (KeyState k : all) {
                HistoryState h = (HistoryState) k;
                if (h.last >= 0) a[n++] = h;
            }
            sorted = n == a.length ? a : Arrays.copyOf(a, n);
        }
        return sorted;
    }

    /** Index in {@link #sortedKeys()} of the first key at or after {@code prefix}. */
    int from(String prefix) {
        return lowerBound(dev.walkit.cli.KeyText.unquote(prefix));
    }

    /** Index in {@link #sortedKeys()} past the last key that starts with {@code prefix}. */
    int to(String prefix) {
        byte[] p = dev.walkit.cli.KeyText.unquote(prefix);
        // The first key past every one with the prefix: the prefix with its last byte below 0xff raised by one.
        int n = p.length;
        while (n > 0 && p[n - 1] == (byte) 0xff) n--;
        if (n == 0) return sortedKeys().length;
        byte[] past = Arrays.copyOf(p, n);
        past[n - 1]++;
        return lowerBound(past);
    }

    int lowerBound(byte[] key) {
        HistoryState[] keys = sortedKeys();
        int lo = 0;
        int hi = keys.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(keys[mid].key(), key) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    public WalFile file() {
        return file;
    }

    public WalFormat format() {
        return format;
    }

    public Replayer state() {
        return state;
    }

    public long records() {
        return account.records();
    }

    public List<DamageLocator.Located> damage() {
        return account.damage();
    }

    /** What the replay read, kept and lost: the one account every view prints. */
    public Account account() {
        return account;
    }

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
    int lastTxnAtOrBefore(long offset) {
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
    List<byte[]> txnKeys(int i) {
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

    /** Live keys at the end, in byte order. */
    public List<KeyState> live() {
        return state.keys().sortedLive();
    }

    @Override
    public void close() throws IOException {
        try {
            file.close();
        } finally {
            if (!source.isWal()) {
                java.nio.file.Files.deleteIfExists(file.path());
                java.nio.file.Files.deleteIfExists(file.path().getParent());
            }
        }
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
    private static LogIndex loadConverted(Conversion conversion, LongConsumer progress) throws IOException {
        Path tmp = java.nio.file.Files.createTempDirectory("walkit-store-");
        Path wal = tmp.resolve(Wal.WAL_FILE);
        tmp.toFile().deleteOnExit();
        wal.toFile().deleteOnExit();
        try {
            Source source = conversion.write(wal);
            WalFile f = WalFile.open(wal, RecordLayout.DEFAULT_MAX_REC_LEN);
            try {
                return new LogIndex(source, wal, f, progress);
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

    private static LogIndex loadEtcdDb(Path db, LongConsumer progress) throws IOException {
        return loadConverted(wal -> {
            try (EtcdDb e = EtcdDb.openDatabase(db)) {
                EtcdDbWal.Summary sum = EtcdDbWal.write(e, wal);
                return new Source(Store.Kind.ETCD_DB, db, new EtcdFacts(e.bolt().meta(), e.compactRevision(), e.consistentIndex(), e.leases(), e.damage(), sum), null,
                        e.store(db, sum.revisions()));
            }
        }, progress);
    }

    /** kine's state.db, read from a private copy: its rows as the WAL's revisions (kine keeps no version: counted). */
    private static LogIndex loadKine(Path db, LongConsumer progress) throws IOException {
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

    public Source source() {
        return source;
    }
}
