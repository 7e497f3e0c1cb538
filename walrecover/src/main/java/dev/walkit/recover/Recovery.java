package dev.walkit.recover;

import dev.walkit.cli.Timing;
import dev.walkit.format.scan.Background;
import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.Wal;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.WalWriter;
import dev.walkit.format.output.Durable;
import dev.walkit.format.output.OutputDir;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PolicyReplay;
import dev.walkit.format.replay.LeaseMetadata;
import dev.walkit.format.replay.SnapshotPrefixWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The engine behind {@code walrecover}: one streaming replay of the input under a §9 policy that
 * writes every kept transaction to a temp file inside the output directory as it is applied (records
 * copied byte-exact; a buggy CRC rewritten under {@code --accept-crc}; v1 re-encoded as v2), or, with
 * {@code --compact}, a snapshot prefix of the final state. The file is read back and verified (no
 * damage, same state digest as planned), hashed and forced to disk by threads that follow the writer
 * ({@link FollowedOutput}); once it is closed and fsynced: write leases.json, rename the WAL into place,
 * fsync the directory. The input is opened read-only; a refusal writes nothing.
 */
public final class Recovery {
    public static final String LEASES_FILE = "leases.json";

    private Recovery() {
    }

    /** A refusal or an unsafe target: nothing was written. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean usage;

        Refused(String why, boolean usage) {
            super(why);
            this.usage = usage;
        }

        public boolean usage() {
            return usage;
        }
    }

    public static RecoveryReport run(RecoveryOptions o, Instant now) throws IOException, Refused {
        return run(o, now, false);
    }

    /** With {@code progress}: a bar on the terminal while the input is replayed (a human report, a large file). */
    public static RecoveryReport run(RecoveryOptions o, Instant now, boolean progress) throws IOException, Refused {
        return run(o, now, progress, null);
    }

    /**
     * As above; with {@code form}, the input is another store (an etcd db, kine's state.db) read as its WAL form
     * ({@link dev.walkit.format.pass.Pass#form}): the form is replayed under the policy and written, and the account
     * and the report speak of the store (its path, its facts, its own damage, which only salvage writes past).
     */
    public static RecoveryReport run(RecoveryOptions o, Instant now, boolean progress, dev.walkit.format.pass.Pass.Form form) throws IOException, Refused {
        Path input = form != null ? form.wal() : Wal.resolve(o.input());
        Path outDir = o.out() == null ? null : o.out().toAbsolutePath().normalize();
        Path target = outDir == null ? null : outDir.resolve(o.file());
        // An existing DIR/wal is refused before anything is read, unless a crashed run's switch is to be put right
        // first (under DIR's lock, below): then DIR is judged after it.
        if (!o.dryRun() && !OutputDir.unfinishedSwitch(outDir)) {
            try {
                checkTarget(form != null ? form.input().file() : input, outDir, target, o.force());
            } catch (Refused e) {
                if (Files.isDirectory(outDir)) OutputDir.removeStaleLock(outDir);
                throw e;
            }
        }

        RecoveryReport.Draft r = new RecoveryReport.Draft();
        r.options = o;
        r.input = form != null ? form.input().file() : input;
        ReaderOptions ro = ReaderOptions.defaults().withAcceptCrc(o.acceptCrc());
        try (WalFile in = WalFile.open(input, ro.maxRecLen())) {
            r.inputBytes = in.size();
            // What walverify calls not a WAL, walrecover does too (exit 4), before DIR is touched.
            WalFormat sniffed = Wal.requireWal(in, ro.maxRecLen()).format();
            Path temp = null;
            HistoryWriter history = null;
            OutputDir dir = null;
            try {
                if (!o.dryRun()) {
                    try {
                        dir = OutputDir.open(outDir);
                    } catch (OutputDir.Busy b) {
                        throw new Refused("another walrecover (pid " + b.holder() + ") is writing into " + outDir
                                + ": wait for it to finish, or choose another --out", true);
                    }
                    r.cleanedUp.addAll(dir.cleanedUp());
                    // Again under the lock: a run that finished meanwhile may have published DIR/wal, or a crashed
                    // run's switch was just finished (its complete output is DIR/wal): say what was put right.
                    // A switch finished just now left that run's own output: the same command run again replaces it,
                    // keeping it as wal.broken.* (a complete pair is never deleted).
                    checkTarget(form != null ? form.input().file() : input, outDir, target, o.force() || dir.finishedEarlierSwitch());
                    if (!o.compact()) checkSpace(outDir, in.size(), "the input's size: the history form is at most that");
                    temp = dir.temp(Wal.WAL_FILE);
                    if (!o.compact()) {
                        history = new HistoryWriter(temp, in, sniffed == WalFormat.V1, o.checksum(), o.store() == dev.walkit.format.account.Store.Kind.WAL);
                    }
                }
                Plan plan = new Plan(r, history, form == null ? null : form.store());
                plan.progress = dev.walkit.cli.Progress.of(o.dryRun() ? "replaying" : "recovering", in.size(), progress);
                plan.stopsHistory = o.form() == RecoveryOptions.Form.AUTO;
                Timing.mark("start");
                PolicyReplay s;
                try {
                    s = PolicyReplay.run(in, sniffed, ro, o.policy(), o.toRevision(), plan);
                } finally {
                    plan.progress.close();
                }
                Timing.mark("replay+write");
                r.format = s.format();
                r.inputRecords = s.records();
                plan.finish(s);
                // (No valid record read at all, as under the crc range bug: decide says why, not this.)
                if (o.toRevision() != Long.MAX_VALUE && s.lastRevisionRead() >= 0 && o.toRevision() > s.lastRevisionRead()) {
                    throw new Refused("--to-revision " + o.toRevision() + " is past the last revision in the log, "
                            + s.lastRevisionRead() + ": nothing to stop at", true);
                }
                Timing.mark("plan finished");
                String refusal = decide(o, r, s, form == null ? null : form.store());
                if (refusal != null) {
                    r.refused = refusal;
                    if (history != null) history.abandon();
                    return r.done();
                }
                r.finalRevision = s.revision();
                r.compactRevision = s.compactRevision();
                r.liveKeys = s.liveCount();
                r.leases = s.leases(o.leaseTtl());
                r.form = o.compact() ? "snapshot" : "history";
                Timing.mark("decided, leases");
                String keptBreak = keptRuleBreak(s.firstKeptBreak(), s.keptBreaks(), s.brokenChains());
                if (o.form() == RecoveryOptions.Form.AUTO && keptBreak != null) {
                    r.form = "snapshot";
                    r.formWhy = keptBreak + ": written as a snapshot of the final state";
                } else if (o.form() == RecoveryOptions.Form.HISTORY && keptBreak != null) {
                    r.formWhy = keptBreak + ": kept as they are (--form history); the findings are listed";
                }
                // The snapshot form compacts to the final revision: the dry run says what the run writes.
                if (r.form.equals("snapshot")) r.compactRevision = s.revision();
                if (o.dryRun()) {
                    r.stateDigest = s.stateDigest();
                    return r.done();
                }
                if (o.form() == RecoveryOptions.Form.AUTO && keptBreak != null) {
                    // The kept records would carry the rule break into the output as they stand: the snapshot form.
                    // The history writer stopped at the first such break (Plan.keptBreak); its file goes.
                    if (history != null) history.abandon();
                    history = null;
                    dir.discard(temp);
                    temp = dir.temp(Wal.WAL_FILE);
                }
                Timing.mark("form chosen");
                FollowedOutput written;
                if (history != null) {
                    written = history.close();
                } else {
                    written = writeSnapshot(temp, s, o.checksum(), o.store() == dev.walkit.format.account.Store.Kind.WAL);
                }
                Timing.mark("close");
                // The output's followers (fsync, SHA-256, read-back) finish while the planned digest (values
                // read back from the input) is computed on a thread of its own; nothing is published before
                // the fsync returns.
                CompletableFuture<String> planned = Background.start("walrecover-planned-digest",
                        s::stateDigest);
                String outputDigest = written.stateDigest();
                // The light replay did not take the output: the full replay says what is wrong with it.
                if (outputDigest == null) outputDigest = fullReadBack(temp, o.form() == RecoveryOptions.Form.HISTORY ? s.keptBreaks() : 0);
                Timing.mark("verify");
                r.stateDigest = Background.join(planned, "the planned state digest");
                Timing.mark("planned digest");
                if (!outputDigest.equals(r.stateDigest)) {
                    throw new IOException("the recovery WAL did not verify (nothing was published): state digest " + outputDigest
                            + " differs from the planned " + r.stateDigest);
                }
                if (o.store() != dev.walkit.format.account.Store.Kind.WAL) {
                    // The verified WAL is the store's form: written as the store's own file, read back, published alone.
                    written.cancel();
                    Path storeTemp = dir.temp(o.file());
                    StoreWritten sw = writeStore(o, temp, storeTemp, s, form, r.leases, in);
                    Timing.mark(o.store().label() + " written and read back");
                    dir.discard(temp);
                    // kine keeps the live set (no version; a key that shared a revision moved): it is compared on that. An etcd
                    // db was read back byte for byte as written from the WAL, itself verified against the plan above.
                    String plannedAs = sw.stateDigest() == null ? null : dev.walkit.format.output.KineOutput.liveDigest(s.live(), in::readFully);
                    if (plannedAs != null && !sw.stateDigest().equals(plannedAs)) {
                        throw new IOException("the recovered " + o.store().label() + " did not verify (nothing was published): state digest "
                                + sw.stateDigest() + " differs from the planned " + plannedAs);
                    }
                    Durable.fsync(storeTemp);
                    Timing.mark(o.store().label() + " fsynced");
                    r.outputChecksum = checksumOf(storeTemp, o.checksum());
                    r.outputBytes = Files.size(storeTemp);
                    r.storeNote = sw.note();
                    r.keptAs = dir.publish(Map.of(o.file(), storeTemp), now);
                    r.output = target;
                    return r.done();
                }
                written.synced();
                Timing.mark("fsync done");
                Path leases = dir.temp(LEASES_FILE);
                Files.writeString(leases, leasesJson(r.leases), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                Durable.fsync(leases);
                Timing.mark("leases written");
                // The hash of the file as the read-back read it (TrailingVerify), which checked every record's CRC.
                r.outputChecksum = written.checksum();
                r.outputBytes = Files.size(temp);
                // One switch, wal last: whenever DIR/wal exists, the leases.json beside it is its own.
                Map<String, Path> pair = new LinkedHashMap<>();
                pair.put(LEASES_FILE, leases);
                pair.put(Wal.WAL_FILE, temp);
                r.keptAs = dir.publish(pair, now);
                Timing.mark("published");
                r.output = target;
                return r.done();
            } finally {
                try {
                    if (history != null) history.abandon();
                } finally {
                    // Unpublished temps, the lock file, and DIR if this run made it and wrote nothing: gone.
                    if (dir != null) dir.close();
                }
            }
        }
    }

    /**
     * The store's file written from the verified WAL: the digest read back from it to compare with the plan's (kine's
     * live set), or null when the writer read it back byte for byte as written (an etcd db); what the report says of it.
     */
    record StoreWritten(String stateDigest, String note) {
    }

    /**
     * Writes the verified recovery WAL {@code wal} as {@code o.store()}'s own file at {@code temp}: an etcd db with the
     * leases the source db granted (their TTLs as granted; a lease only the keys name, --lease-ttl), or every lease the
     * live keys hold with --lease-ttl for a WAL or kine's db.
     */
    private static StoreWritten writeStore(RecoveryOptions o, Path wal, Path temp, PolicyReplay s, dev.walkit.format.pass.Pass.Form form,
                                           LeaseMetadata leases, WalFile in) throws IOException {
        checkSpace(temp.getParent(), Files.size(wal) + (Files.size(wal) >> 2), "the recovered state as the store's own file");
        if (o.store() == dev.walkit.format.account.Store.Kind.ETCD_DB) {
            Map<Long, Long> ttls = new java.util.TreeMap<>();
            for (Long id : leases.keysByLease().keySet()) ttls.put(id, leases.ttlSeconds());
            if (form != null) ttls.putAll(form.leaseTtls());
            dev.walkit.format.output.EtcdDbOutput.Written w = dev.walkit.format.output.EtcdDbOutput.write(wal, temp, ttls, o.bumpRevision());
            // Read back byte for byte as written from the WAL, which was verified against the plan: nothing more to compare.
            return new StoreWritten(null, String.format("an etcd db of %,d revision(s), compact revision %d%s, %d lease(s); "
                    + "restore it with: etcdctl snapshot restore %s --skip-hash-check (a member's db carries no snapshot hash)",
                    w.revisions(), w.compactRevision(), o.bumpRevision() > 0 ? " (its revision, " + o.bumpRevision() + " past the recovered "
                    + s.revision() + ")" : "", ttls.size(), o.out().resolve(o.file())));
        }
        // kine's state.db: one row a live key, its lease a TTL (a kine db's lease is one; a lease ID, its TTL as granted or --lease-ttl).
        boolean kineIn = form != null && form.input().kind() == dev.walkit.format.account.Store.Kind.KINE;
        java.util.Iterator<Pass.LiveKey> it = s.live().iterator();
        java.util.Iterator<dev.walkit.format.output.KineOutput.Row> rows = new java.util.Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public dev.walkit.format.output.KineOutput.Row next() {
                Pass.LiveKey k = it.next();
                long ttl = k.lease() == 0 ? 0 : kineIn ? k.lease() : form != null && form.leaseTtls().getOrDefault(k.lease(), -1L) > 0
                        ? form.leaseTtls().get(k.lease()) : o.leaseTtl();
                return new dev.walkit.format.output.KineOutput.Row(k.key(), in.read(k.valueOffset(), k.valueLength()), k.createRevision(), k.modRevision(), ttl);
            }
        };
        dev.walkit.format.output.KineOutput.Written w;
        try (dev.walkit.format.output.KineOutput.Writer kw = dev.walkit.format.output.KineOutput.Writer.create(temp)) {
            w = kw.write(rows, s.revision());
            kw.finish();
        }
        String note = String.format("kine's state.db of %,d live key(s) at revision %d (the history before it recorded as compacted)%s; kine serves it "
                + "as its own (k3s: server/db/state.db)", w.rows(), w.revision(), w.notes().isEmpty() ? "" : "; " + String.join("; ", w.notes()));
        return new StoreWritten(dev.walkit.format.output.KineOutput.readBack(temp), note);
    }

    /** The checksum of a whole file (an output written in one go, not followed). */
    private static String checksumOf(Path file, OutputChecksum kind) throws IOException {
        java.security.MessageDigest d = kind.newDigest();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 16);
            while (ch.read(b.clear()) > 0) d.update(b.flip());
        }
        return HexFormat.of().formatHex(d.digest());
    }

    /** Fails, before anything is written, when {@code dir}'s file system has less than {@code need} bytes free. */
    static void checkSpace(Path dir, long need, String why) throws IOException {
        java.nio.file.FileStore store = Files.getFileStore(dir);
        // A file system whose statfs says nothing (all zeros: some FUSE ones, as df shows "-") cannot be checked.
        if (store.getTotalSpace() == 0) return;
        long free = store.getUsableSpace();
        if (free < need) {
            throw new IOException(dir + ": not enough free space: the output needs up to " + need + " bytes (" + why + "), "
                    + free + " are free; nothing written");
        }
    }

    private static void checkTarget(Path input, Path outDir, Path target, boolean force) throws Refused, IOException {
        if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
            throw new Refused(outDir + " exists and is not a directory: --out names the output data directory", true);
        }
        Path inputDir = input.toAbsolutePath().normalize().getParent();
        boolean sameDir = Files.isDirectory(outDir) && inputDir != null && Files.isSameFile(inputDir, outDir);
        if (sameDir && !force) {
            throw new Refused(outDir + " is the input's own directory: choose another --out (or --force, which keeps the input as "
                    + target.getFileName() + ".broken.<timestamp>)", true);
        }
        if (Files.exists(target) && !force) {
            throw new Refused(target + " exists: choose an empty --out directory (or --force, which keeps it as " + target.getFileName() + ".broken.<timestamp>)", true);
        }
    }

    /** The keys whose chain broke named in the form's reason (the account lists them all). */
    static final int MAX_KEYS_NAMED = 10;

    /**
     * Why the history form would not verify, in words, or null: the kept records break a rule as they stand
     * ({@code f}, the first of {@code n}); the history form copies them byte-exact, so its replay would find it.
     * The snapshot form states each live key once, which §5's create_revision/version rules do not apply to.
     */
    static String keptRuleBreak(Finding f, long n, List<byte[]> brokenChains) {
        if (f == null) return null;
        // The first keys whose chain broke, each once, quoted (the account lists them all as affected keys).
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        for (byte[] k : brokenChains) {
            if (keys.size() == MAX_KEYS_NAMED) break;
            keys.add(dev.walkit.cli.KeyText.quote(k));
        }
        String named = keys.isEmpty() ? "" : "; keys whose chain broke: " + String.join(", ", keys)
                + (n > keys.size() ? " … (" + n + " breaks in all)" : "");
        return "the kept records break the rules of a healthy log as they stand (" + f.kind().label() + " at offset "
                + f.offset() + (n > 1 ? ", and " + (n - 1) + " more" : "") + named + ")";
    }

    /**
     * Why nothing is written of what replay found, or null to go on: the crc range bug (whatever the policy), the
     * policy's refusal, a --to-revision below what a snapshot prefix stands for, or nothing left to write.
     */
    private static String decide(RecoveryOptions o, RecoveryReport.Draft r, PolicyReplay s, dev.walkit.format.account.Store store) {
        if (store != null && !store.damage().isEmpty() && !(o.policy() instanceof dev.walkit.format.policy.Salvage)) {
            // The store's own format is damaged where no revision of its form says: only salvage writes past it.
            return "policy " + o.policy().label() + ": the " + store.kind().title() + " itself is damaged (" + store.damage().get(0)
                    + (store.damage().size() > 1 ? "; " + (store.damage().size() - 1) + " more" : "") + "); nothing written "
                    + "(--policy salvage keeps every revision read from it)";
        }
        for (DamageSpan d : s.damage()) {
            if (d.kind() != DamageKind.CRC_RANGE_BUG) continue;
            return "the crc range bug: " + d.records() + " record(s) at offset " + d.offset() + " have CRCs over the "
                    + d.crcRange().label() + " range; the data is intact. Rerun with --accept-crc " + d.crcRange().label()
                    + " (without it they would be dropped and the store would lose them)";
        }
        String policy = s.refusal(o.policy());
        if (policy != null) return policy;
        if (s.prefixRevision() > 0 && o.toRevision() < s.prefixRevision()) {
            // Whatever is damaged: with the snapshot marker lost, its records still stand for their revisions.
            return "--to-revision " + o.toRevision() + " is below the " + (s.compactRevision() > 0 ? "compact revision "
                    : "revision of the snapshot prefix (its marker lost) ") + s.prefixRevision() + ": history before it is gone (compacted)";
        }
        if (r.keptTransactions == 0 && !o.allowEmpty()) {
            return "nothing to recover: no complete transaction survived (" + s.damage().size() + " damaged span(s), "
                    + r.droppedTransactions + " transaction(s) dropped); nothing written (--allow-empty writes an empty WAL)";
        }
        return null;
    }

    /** Collects the report while replay runs, and writes kept transactions when a writer is given. */
    private static final class Plan implements PolicyReplay.Listener {
        final RecoveryReport.Draft r;
        final HistoryWriter history;
        final Map<String, RecoveryReport.Loss> loss = new LinkedHashMap<>();
        final List<Transaction> droppedTxns = new ArrayList<>();
        /** Set at the first kept rule break under --form auto: the history form is not written. */
        boolean historyStopped;
        /** --form auto: a kept rule break means the snapshot form. */
        boolean stopsHistory;
        @Override
        public void read(long offset, long revision) {
            progress.accept(offset);
        }

        /** The bar on the terminal, or one that draws nothing. */
        dev.walkit.cli.Progress progress = dev.walkit.cli.Progress.of("", 0, false);

        /** The store the input is the WAL form of (its facts and own damage), or null: the input is a WAL. */
        final dev.walkit.format.account.Store store;

        Plan(RecoveryReport.Draft r, HistoryWriter history, dev.walkit.format.account.Store store) {
            this.r = r;
            this.history = history;
            this.store = store;
        }

        @Override
        public void applied(Transaction txn, PolicyReplay.KeyFacts keys) {
            r.keptTransactions++;
            r.keptRecords += txn.records();
            if (history != null && !historyStopped) history.write(txn, keys);
        }

        /**
         * The history form will not be written (its records would carry this break): the writer stops here rather than
         * copy the rest of the log for nothing (2 GiB salvage with an early break: replay and write 16.2 s, most of it
         * system time, the snapshot form then written instead).
         */
        @Override
        public void keptBreak(Finding f, byte[] key) {
            if (history != null && !historyStopped && stopsHistory) {
                historyStopped = true;
                try {
                    history.abandon();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        @Override
        public void dropped(Transaction txn) {
            if (droppedTxns.size() < RecoveryReport.MAX_LISTED) droppedTxns.add(txn);
        }

        /** The account of the input under the policy (the one every tool makes of it), and the loss preview. */
        void finish(PolicyReplay s) {
            dev.walkit.format.account.Account a = s.account(store);
            r.account = a;
            r.revisions = a.revisions();
            r.droppedTransactions = a.drops().size();
            // The loss preview: keys the dropped (complete) transactions would have changed.
            for (Transaction t : droppedTxns) {
                for (WalEntry e : t.entries()) {
                    Pass.LiveKey k = s.live(e.key());
                    boolean liveNow = k != null;
                    String change;
                    if (e.isDelete()) {
                        if (!liveNow) continue;
                        change = "deleted";
                    } else if (!liveNow) {
                        change = "created";
                    } else if (k.modRevision() >= e.revision()) {
                        continue;
                    } else {
                        change = "changed";
                    }
                    String id = HexFormat.of().formatHex(e.key());
                    if (loss.size() < RecoveryReport.MAX_LISTED) loss.put(id, new RecoveryReport.Loss(change, e.key(), e.revision()));
                }
            }
            r.loss.addAll(loss.values());
        }
    }

    /**
     * Writes kept transactions in full-history form: records byte-exact, CRC rewritten when accepted
     * under a buggy range, v1 re-encoded. A snapshot prefix is held back (as offsets) until it ends,
     * so that its marker can carry the count of records actually kept.
     */
    private static final class HistoryWriter {
        private final WalWriter out;
        private final WalFile in;
        private final RecordEncoder encoder = new RecordEncoder();
        private WalEntry marker;
        private final List<WalEntry> prefix = new ArrayList<>();
        private boolean closed;

        private final boolean v1;

        private final FollowedOutput followers;
        /**
         * A run is copied when it reaches this size: the copy then goes on while the log is replayed, and the
         * read-back hashes behind it. A log with no damage is one run; copied whole at the end, the copy
         * and the hash of 2 GiB came after the replay, one after the other (2.5-4.7 s).
         */
        private static final long RUN_CHUNK = 8L << 20;
        /** Input bytes [runStart, runEnd) still to be copied: consecutive records kept as they are. */
        private long runStart = -1;
        private long runEnd = -1;

        HistoryWriter(Path temp, WalFile in, boolean v1, OutputChecksum checksum, boolean durable) throws IOException {
            this.out = WalWriter.create(temp);
            this.followers = new FollowedOutput(temp, checksum, durable);
            out.onFlush(followers::written);
            this.in = in;
            this.v1 = v1;
        }

        void write(Transaction txn, PolicyReplay.KeyFacts keys) {
            try {
                if (!v1 && txn.plain()) {
                    // Ordinary records, standard CRCs, one after the other: the bytes copied as they are.
                    flushPrefix();
                    extendRun(txn.offset(), txn.end() - txn.offset());
                    return;
                }
                List<WalEntry> entries = txn.entries();
                for (int i = 0, n = entries.size(); i < n; i++) {
                    // By index, as Replayer.transaction: no iterator allocated per transaction.
                    WalEntry e = entries.get(i);
                    if (e.isSnapshot()) {
                        if (e.key().length == 0) marker = e;
                        else prefix.add(e);
                        continue;
                    }
                    flushPrefix();
                    copy(e, keys);
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        /** Writes the pending run of records copied as they are. */
        private void flushRun() throws IOException {
            if (runEnd > runStart) out.appendFrom(in, runStart, runEnd - runStart);
            runStart = runEnd = -1;
        }

        /** Byte-exact: extends the run of consecutive records, copied in one go inside the kernel. */
        private void extendRun(long offset, long length) throws IOException {
            if (offset != runEnd) {
                flushRun();
                runStart = offset;
                runEnd = offset;
            }
            runEnd += length;
            if (runEnd - runStart >= RUN_CHUNK) flushRun();
        }

        private void flushPrefix() throws IOException {
            if (marker == null && prefix.isEmpty()) return;
            flushRun();
            long compactRevision = marker != null ? marker.revision() : prefix.stream().mapToLong(WalEntry::revision).max().orElse(0);
            out.append(SnapshotPrefixWriter.marker(compactRevision, prefix.size())); // the records kept byte for byte: as they stand
            for (WalEntry e : prefix) copy(e, null);
            marker = null;
            prefix.clear();
        }

        private void copy(WalEntry e, PolicyReplay.KeyFacts keys) throws IOException {
            if (!v1 && e.crcRange() == CrcRange.STANDARD) {
                extendRun(e.offset(), e.length());
                return;
            }
            flushRun();
            if (v1) {
                // v1 is always written as v2, with the create_revision and version replay derived.
                if (e.isDelete()) {
                    out.append(KeyValue.delete(e.key(), e.revision()));
                } else {
                    long[] k = keys.createAndVersion(e.key());
                    out.append(KeyValue.put(e.key(), k[0], e.revision(), k[1], in.read(e.valueOffset(), e.valueLength()), 0));
                }
                return;
            }
            byte[] rec = in.read(e.offset(), (int) e.length());
            encoder.writeCrc(ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN), 0, rec.length - RecordLayout.OVERHEAD, CrcRange.STANDARD);
            out.appendRaw(rec);
        }

        /** Writes what is pending and closes (the followers fsync it, hash it, and finish reading it back). */
        FollowedOutput close() throws IOException {
            flushPrefix();
            flushRun();
            closed = true;
            out.closeWithoutFsync();
            followers.closed(out.size());
            return followers;
        }

        /** Stops the followers; closes the file if it is still open. */
        void abandon() throws IOException {
            followers.cancel();
            if (!closed) {
                closed = true;
                out.closeWithoutFsync();
            }
        }
    }

    /** Writes the snapshot form of the state (the followers fsync it, hash it, and finish reading it back). */
    private static FollowedOutput writeSnapshot(Path temp, PolicyReplay s, OutputChecksum checksum, boolean durable) throws IOException {
        checkSpace(temp.getParent(), s.snapshotBytes(), "the snapshot of " + s.liveCount() + " live keys");
        WalWriter w = WalWriter.create(temp);
        FollowedOutput followers = new FollowedOutput(temp, checksum, durable);
        w.onFlush(followers::written);
        try {
            s.writeSnapshot(w::append);
        } catch (IOException | RuntimeException e) {
            followers.cancel();
            throw e;
        } finally {
            w.closeWithoutFsync();
        }
        followers.closed(w.size());
        return followers;
    }

    /**
     * Replays the written output in full, when the light read-back ({@link TrailingVerify}) did not take it:
     * it must have no damage, incomplete transaction, revision regression or truncated snapshot; returns
     * its state digest, for the caller to compare with the plan, or names what is wrong.
     */
    private static String fullReadBack(Path temp, long keptBreaks) throws IOException {
        try (Pass.Replayed r = Pass.replay(temp, null)) { // its own output: v2
            PolicyReplay s = r.replay();
            List<String> problems = new ArrayList<>();
            if (!s.damage().isEmpty()) problems.add(s.damage().size() + " damaged span(s), first " + s.damage().get(0));
            // The same check as walverify --level semantic: any finding at all fails it; under --form history, exactly
            // the rule breaks the kept records carry ({@code keptBreaks}), and nothing else.
            Map<DamageKind, Integer> counts = s.findingCounts();
            boolean asKept = keptBreaks > 0 && s.keptBreaks() == keptBreaks
                    && counts.values().stream().mapToLong(Integer::longValue).sum() == keptBreaks;
            if (!asKept) counts.forEach((k, n) -> problems.add(n + " " + k.label()));
            if (!problems.isEmpty()) {
                throw new IOException("the recovery WAL did not verify (nothing was published): " + String.join("; ", problems));
            }
            return s.stateDigest();
        }
    }

    static String leasesJson(LeaseMetadata m) {
        java.util.SortedMap<Long, long[]> leases = new java.util.TreeMap<>();
        m.keysByLease().forEach((id, n) -> leases.put(id, new long[] {m.ttlSeconds(), n}));
        return dev.walkit.cli.LeasesFile.json(m.ttlSeconds(), m.nextLeaseId(), leases);
    }

}
