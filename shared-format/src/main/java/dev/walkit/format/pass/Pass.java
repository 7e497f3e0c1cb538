package dev.walkit.format.pass;

import dev.walkit.format.ValueCheck;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.EntrySource;
import dev.walkit.format.Finding;
import dev.walkit.format.LogItem;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.V1Reader;
import dev.walkit.format.Wal;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.account.Store;
import dev.walkit.format.account.WalKeys;
import dev.walkit.format.replay.CleanReplay;
import dev.walkit.format.replay.CleanScan;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The verification engine behind {@code walverify}: one streaming pass at the chosen level. Opens the
 * input read-only and never modifies it.
 */
public final class Pass {
    /** Sees findings as they are found (for --jsonl). */
    public interface Listener {
        default void damage(DamageLocator.Located d) {
        }

        default void finding(Finding f) {
        }

        /** Damage an etcd db's or kine db's own format shows (a bbolt page, what SQLite's check says), as a report line names it. */
        default void storeDamage(String store, String detail) {
        }

        /** Told the bytes of the file read as verification goes (a progress bar), or null for none. */
        default java.util.function.LongConsumer bytesRead() {
            return null;
        }
    }

    private Pass() {
    }

    /** What a path given on the command line is: the store, sniffed from its bytes, and the file read. */
    public record Input(Store.Kind kind, Path file) {
        public boolean isWal() {
            return kind == Store.Kind.WAL;
        }
    }

    /**
     * Which store {@code path} is (a WAL file or directory, kine's state.db or k3s's db directory, etcd's db or data
     * directory), from its bytes: the one sniffing every tool goes through. Adding a fourth store is a line in
     * {@link dev.walkit.format.store.StoreFile} and a reader here.
     */
    public static Input input(Path path) throws IOException {
        dev.walkit.format.store.StoreFile f = dev.walkit.format.store.StoreFile.resolve(path);
        return new Input(f.kind(), f.file());
    }

    /**
     * The pass over {@code input} at {@code level}: the store sniffed once, read, and its {@link Account} (what was
     * read, kept and lost; the verdict) with what only a pass says of the read (a leftover compaction, a file that
     * grew meanwhile).
     */
    public static PassReport read(Path input, Level level, Listener listener) throws IOException {
        return read(input, level, listener, SplitScan.MIN_SPLIT);
    }

    /**
     * A WAL's semantic pass whose state a tool goes on to use (walmigrate's source): the replay under {@code policy}'s
     * replay options (null: the rules' defaults, what {@link #read} replays), its account as {@link #read} gives it at
     * semantic level for the defaults, and what the replay left ({@link PolicyReplay}: the live keys, their values read
     * from the file, open until the result is closed). One read of the log.
     */
    public static Replayed replay(Path input, dev.walkit.format.policy.RecoveryPolicy policy) throws IOException {
        Replayer.Options options = policy == null ? Replayer.Options.defaults() : policy.replayOptions(Long.MAX_VALUE);
        Path walPath = Wal.resolve(input);
        ReaderOptions ro = ReaderOptions.defaults();
        WalFile file = WalFile.open(walPath, ro.maxRecLen());
        try {
            Wal.Sniff sniff = Wal.requireWal(file, ro.maxRecLen());
            PolicyReplay res = PolicyReplay.run(file, sniff.format(), ro, options, new PolicyReplay.Listener() { });
            return new Replayed(new PassReport(sniff.format(), Level.SEMANTIC, res.account(null), Wal.leftoverCompaction(walPath), -1, false, null,
                    SplitScan.Outcome.ONE_THREAD), res, file);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * kine's state.db read once for a tool that goes on to use its keys (walmigrate's kine source): the pass's check of
     * it (the report {@link #read} gives at semantic level: SQLite's quick_check beside the rows replayed by the rules,
     * the salvage where SQLite reads around damage) and, from the same open of the db, its live set as kine serves it
     * ({@link dev.walkit.format.kine.KineLive}), in key order when {@code ordered}. A file that is no kine database is
     * refused in the kine reader's words.
     */
    public static KineRead kine(Path input, boolean ordered) throws IOException {
        Input in;
        try {
            in = input(input);
        } catch (IOException e) {
            in = null; // the kine reader says what the file is not
        }
        dev.walkit.format.kine.KineDb db = dev.walkit.format.kine.KineDb.open(in == null ? input : in.file(), "walkit");
        try {
            if (in == null || in.kind() != Store.Kind.KINE) {
                db.live().requireTable();
                throw new IOException(input + ": not a kine database");
            }
            return new KineRead(KinePass.verify(db, in.file(), Level.SEMANTIC, new Listener() { }), db, ordered);
        } catch (IOException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** kine's db as {@link #kine} read it: the pass's report, then its live set when asked for; open until this is closed. */
    public static final class KineRead implements AutoCloseable {
        private final PassReport report;
        private final dev.walkit.format.kine.KineDb db;
        private final boolean ordered;
        private dev.walkit.format.kine.KineLive.LiveSet keys;

        private KineRead(PassReport report, dev.walkit.format.kine.KineDb db, boolean ordered) {
            this.report = report;
            this.db = db;
            this.ordered = ordered;
        }

        public PassReport report() {
            return report;
        }

        /**
         * The live keys, read as they are asked for (the query starts at the first call: a caller that refuses the db by
         * its report never reads them); the set's revision is kine's (its greatest row id).
         */
        public dev.walkit.format.kine.KineLive.LiveSet keys() throws IOException {
            if (keys == null) keys = db.live().liveSet(-1, ordered);
            return keys;
        }

        @Override
        public void close() throws IOException {
            try {
                if (keys != null) keys.close();
            } finally {
                db.close();
            }
        }
    }

    /** A live key a replay left: its fields, and where its value sits in the file replayed. */
    public record LiveKey(byte[] key, long valueOffset, int valueLength, long createRevision, long modRevision, long version, long lease) {
    }

    /** A WAL replayed: the pass's report, what the replay left, and the file its values are read from (closed with this). */
    public record Replayed(PassReport report, PolicyReplay replay, WalFile file) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    /**
     * A store other than a WAL (an etcd db, kine's state.db) as a tool that rewrites a log reads it: its history written
     * as a WAL form to a private temporary file (deleted on close), and the store's own facts and damage ({@link Store},
     * as {@link #read} gives them at semantic level), for the account to speak of the store, never of its form.
     */
    public static Form form(Path path) throws IOException {
        Input in = input(path);
        if (in.isWal()) throw new IllegalArgumentException(path + " is a WAL: it is its own form");
        Path dir = java.nio.file.Files.createTempDirectory("walkit-form-");
        Path wal = dir.resolve(Wal.WAL_FILE);
        try {
            java.util.Map<Long, Long> leaseTtls = java.util.Map.of();
            Store store;
            if (in.kind() == Store.Kind.ETCD_DB) {
                // One read: the form, and the db's facts and damage as the pass gives them (EtcdDbPass: the same store).
                try (dev.walkit.format.etcd.EtcdDb db = dev.walkit.format.etcd.EtcdDb.openDatabase(in.file())) {
                    dev.walkit.format.etcd.EtcdDbWal.Summary sum = dev.walkit.format.etcd.EtcdDbWal.write(db, wal);
                    leaseTtls = java.util.Map.copyOf(db.leases());
                    store = db.store(in.file(), sum.revisions());
                }
            } else {
                store = read(path, Level.SEMANTIC, null).account().store();
                try (dev.walkit.format.kine.KineDb db = dev.walkit.format.kine.KineDb.open(in.file(), "walrecover")) {
                    dev.walkit.format.kine.KineHistoryWal.write(db, wal);
                }
            }
            return new Form(in, wal, store, leaseTtls);
        } catch (IOException | RuntimeException e) {
            java.nio.file.Files.deleteIfExists(wal);
            java.nio.file.Files.deleteIfExists(dir);
            throw e;
        }
    }

    /**
     * A store's WAL form: the store, its form's file, the store's own facts, and the leases it granted (ID → TTL in
     * seconds, -1 when its record does not say; an etcd db's lease bucket: none for kine, whose lease is a TTL).
     */
    public record Form(Input input, Path wal, Store store, java.util.Map<Long, Long> leaseTtls) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            java.nio.file.Files.deleteIfExists(wal);
            java.nio.file.Files.deleteIfExists(wal.getParent());
        }
    }

    /**
     * The pass's read-only history of the store at {@code path} (any store: sniffed as {@link #input} sniffs it), keyed by
     * bytes: get, range (keys only copying no value), a key's history, the events in revision order, the leases, at any
     * revision, with the same {@link Account} {@link #read} gives at semantic level. What the shell, the one-shot
     * commands, the report and serve answer from. {@code progress} sees the offset read now and then, or is null.
     */
    public static StoreHistory history(Path path, java.util.function.LongConsumer progress) throws IOException {
        return StoreHistory.load(path, progress);
    }

    /**
     * As {@link #history(Path, java.util.function.LongConsumer)}, kept between opens in {@code cache} ({@link SavedIndex}):
     * a WAL whose saved index is there and still its own is mapped, not read; otherwise it is read whole (why the index
     * was not used is said in one line) and its index saved on a thread of its own once the caller's first answer is out
     * ({@link StoreHistory#startSaving}; {@link StoreHistory#close} at the latest, which waits for it). An etcd db's or
     * kine db's index keeps the WAL form its history is of beside it.
     */
    public static StoreHistory history(Path path, java.util.function.LongConsumer progress, SavedIndex.Cache cache) throws IOException {
        Input in = input(path);
        if (cache == null) return StoreHistory.load(path, progress);
        SavedIndex.Identity id = SavedIndex.Identity.of(in.file(), in.kind());
        StoreHistory saved = SavedIndex.open(in, id, cache);
        if (saved != null) {
            // A file that grew was read from its saved end on. Its new index is saved once the growth read is large (an
            // eighth of the file, or 256 MiB): the saved one still covers the part before, and saving costs more than
            // reading a small growth again.
            long grown = saved.resumedFrom() < 0 ? 0 : id.size() - saved.resumedFrom();
            if (!saved.indexed() && (grown > id.size() / 8 || grown > 256L << 20)) saved.saving(() -> SavedIndex.save(saved, id, cache));
            return saved;
        }
        StoreHistory h = StoreHistory.load(path, progress);
        h.saving(() -> SavedIndex.save(h, id, cache));
        return h;
    }

    /**
     * What a report tallies of the store at {@code path}, from one read: a WAL's history ({@link #history}: the report
     * places transactions in the file), an etcd db's or kine db's form replayed as it is made (no history, no file
     * written). {@code progress} sees a WAL's offset now and then, or is null.
     */
    public static Tallies tally(Path path, java.util.function.LongConsumer progress) throws IOException {
        Input in = input(path);
        return in.isWal() ? StoreHistory.load(path, progress) : StoreTally.read(in);
    }

    /** The finding a compaction's leftover file beside the log is: reported, not damage (wal stays authoritative, §6). */
    public static Finding leftoverFinding(Path leftover) {
        return new Finding(DamageKind.LEFTOVER_COMPACTION, 0, 0, -1, 0, leftover + " exists: a compaction did not finish");
    }

    /** As above; v2 files of {@code minSplit} bytes or more are read on two threads at frame and decode level. */
    public static PassReport read(Path input, Level level, Listener listener, long minSplit) throws IOException {
        Listener l = listener == null ? new Listener() { } : listener;
        dev.walkit.format.store.StoreFile store = dev.walkit.format.store.StoreFile.resolve(input);
        if (store.kind() == dev.walkit.format.account.Store.Kind.ETCD_DB) return EtcdDbPass.verify(store.file(), level, l);
        if (store.kind() == dev.walkit.format.account.Store.Kind.KINE) return KinePass.verify(store.file(), level, l);
        Path walPath = Wal.resolve(input);
        ReaderOptions ro = level == Level.FRAME ? ReaderOptions.frame() : ReaderOptions.defaults();
        Facts r = new Facts();
        r.level = level;
        r.leftoverCompaction = Wal.leftoverCompaction(walPath);
        Account account;
        try (WalFile file = WalFile.open(walPath, ro.maxRecLen())) {
            r.bytes = file.size();
            file.onFill(l.bytesRead());
            Wal.Sniff sniff = Wal.requireWal(file, ro.maxRecLen());
            r.format = sniff.format();
            Store wal = Store.wal(walPath, file.size(), sniff.format().label());
            if (level == Level.VALUES) {
                account = values(file, sniff.format(), ro, wal, l);
            } else if (level == Level.SEMANTIC) {
                CleanReplay clean = sniff.format() == WalFormat.V2 ? CleanScan.scan(file, ro, CleanReplay.whole()) : null;
                r.cleanPath = clean != null && clean.irregularity() == null;
                r.cleanPathEnded = clean == null ? null : clean.irregularity();
                account = r.cleanPath ? Account.clean(wal, clean, file.size()) : semantic(file, sniff.format(), ro, wal, l);
            } else {
                Locator loc = new Locator(r, l);
                if (sniff.format() == WalFormat.V2) {
                    frames(file, ro, r, loc, minSplit);
                } else {
                    try (EntrySource src = new V1Reader(file, ro.maxRecLen(), false)) {
                        for (LogItem it; (it = src.next()) != null; ) {
                            if (it instanceof WalEntry e) {
                                loc.record(e.revision());
                                r.transactions++;
                            } else {
                                loc.damage((DamageSpan) it);
                            }
                        }
                    }
                }
                loc.end();
                account = Account.scan(wal, r.records, r.transactions, r.firstRevision, r.lastRevision, r.compactRevision, file.size(),
                        r.damage, List.of());
            }
        }
        try {
            long now = java.nio.file.Files.size(walPath);
            if (now > r.bytes) r.grewTo = now;
        } catch (IOException e) {
            // gone or unreadable since: what was read stands
        }
        if (r.leftoverCompaction != null) {
            // Reported, not damage: wal stays authoritative (§6).
            Finding f = leftoverFinding(r.leftoverCompaction);
            l.finding(f);
            account = account.withFinding(f, r.bytes);
        }
        return new PassReport(r.format, level, account, r.leftoverCompaction, r.grewTo, r.cleanPath, r.cleanPathEnded, r.scan);
    }

    /** What the pass finds besides its account. */
    private static final class Facts {
        SplitScan.Outcome scan = SplitScan.Outcome.ONE_THREAD;
        WalFormat format;
        Level level;
        long bytes;
        long records;
        long transactions;
        long firstRevision = -1;
        long lastRevision = -1;
        long compactRevision = -1;
        boolean cleanPath;
        String cleanPathEnded;
        final List<DamageLocator.Located> damage = new ArrayList<>();
        Path leftoverCompaction;
        long grewTo = -1;
    }

    private static void frames(WalFile file, ReaderOptions ro, Facts r, Locator loc, long minSplit) throws IOException {
        r.scan = FrameScan.scan(file, ro, new FrameScan.Sink() {
            @Override
            public void records(long count, long transactions, long firstRevision, long lastRevision, long maxRevision) {
                loc.records(count, firstRevision, lastRevision, maxRevision);
                r.transactions += transactions;
            }

            @Override
            public void damage(DamageSpan d) {
                loc.damage(d);
            }
        }, rev -> r.compactRevision = rev, minSplit);
    }

    /** The full replay: its account (every damaged span told to {@code l} as located, every finding at the end). */
    private static Account semantic(WalFile file, WalFormat format, ReaderOptions ro, Store store, Listener l) throws IOException {
        return semantic(file, format, ro, store, l, new AccountListener(l::damage));
    }

    /** The full replay's account, told to {@code listener} (one that also watches the replay) and its findings to {@code l}. */
    private static Account semantic(WalFile file, WalFormat format, ReaderOptions ro, Store store, Listener l, AccountListener listener) throws IOException {
        Replay.Result res = Replay.run(file, format, ro, Replayer.Options.defaults(), listener);
        Account a = listener.account(store, res.state(), file.size(), WalKeys.of(file, res.format()));
        for (Finding f : a.findings()) l.finding(f);
        return a;
    }

    /**
     * The semantic account, then every applied record's value checked ({@link ValueCheck}): a record whose CRC matches
     * but whose Kubernetes value is not what the apiserver writes is an {@code undecodable-value} finding.
     */
    private static Account values(WalFile file, WalFormat format, ReaderOptions ro, Store store, Listener l) throws IOException {
        List<long[]> applied = new ArrayList<>(); // {offset, revision} of each applied PUT
        AccountListener listener = new AccountListener(l::damage) {
            @Override
            public void recordApplied(long offset, long revision, boolean delete, dev.walkit.format.replay.KeyState state) {
                super.recordApplied(offset, revision, delete, state);
                if (!delete) applied.add(new long[] {offset, revision});
            }
        };
        Account a = semantic(file, format, ro, store, l, listener);
        if (format != WalFormat.V2) return a;
        for (long[] r : applied) {
            dev.walkit.format.KeyValue kv = WalKeys.recordAt(file, r[0]);
            String why = kv == null ? null : ValueCheck.check(kv.key(), kv.value());
            if (why == null) continue;
            int length = dev.walkit.format.RecordLayout.OVERHEAD + file.intAt(r[0] + dev.walkit.format.RecordLayout.REC_LEN_OFFSET);
            Finding f = new Finding(DamageKind.UNDECODABLE_VALUE, r[0], length, r[1], 0, "key " + dev.walkit.format.KeyQuote.quote(kv.key()) + ": " + why);
            l.finding(f);
            a = a.withFinding(f, file.size());
        }
        return a;
    }

    /** Feeds the report from a {@link DamageLocator}. */
    private static final class Locator {
        private final Facts r;
        private final DamageLocator loc;

        Locator(Facts r, Listener l) {
            this.r = r;
            this.loc = new DamageLocator(x -> {
                r.damage.add(x);
                l.damage(x);
            });
        }

        void record(long revision) {
            loc.record(revision);
        }

        void records(long count, long firstRevision, long lastRevision, long maxRevision) {
            loc.records(count, firstRevision, lastRevision, maxRevision);
        }

        void damage(DamageSpan d) {
            loc.damage(d);
        }

        void end() {
            loc.end();
            r.records = loc.records();
            r.firstRevision = loc.firstRevision();
            r.lastRevision = loc.lastRevision();
        }
    }
}
