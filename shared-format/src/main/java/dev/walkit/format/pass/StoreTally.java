package dev.walkit.format.pass;

import dev.walkit.format.DamageKind;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.account.Store;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;
import dev.walkit.format.kine.KineCheck;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;
import dev.walkit.format.replay.FormReplay;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.LeaseMetadata;
import dev.walkit.format.replay.Replayer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * An etcd db's or a kine db's tallies ({@link Tallies}) from one read: its form replayed as it is made (no file written,
 * no value copied out of the store), each key's applied records counted on its state, each applied revision kept
 * (packed). What {@code waldoctor diagnose} of a store other than a WAL reads: the report needs no history.
 */
final class StoreTally implements Tallies {
    /** A key's state with the count of its applied records. */
    private static final class Counted extends KeyState {
        int writes;

        Counted(byte[] key) {
            super(key);
        }
    }

    private final StoreHistory.Source source;
    private final Account account;
    private final Replayer state;
    private final PackedLongs applied;

    private StoreTally(StoreHistory.Source source, Account account, Replayer state, PackedLongs applied) {
        this.source = source;
        this.account = account;
        this.state = state;
        this.applied = applied;
    }

    /** The listener that counts: each applied record on its key's state and in the revisions applied. */
    private static final class Counting extends AccountListener {
        final PackedLongs applied = new PackedLongs();

        @Override
        public void recordApplied(long offset, long revision, boolean delete, KeyState state) {
            ((Counted) state).writes++;
            applied.add(revision);
        }
    }

    private record Replayed(FormReplay.Result result, Counting listener) {
    }

    private static Replayed replay(FormReplay.Form form) throws IOException {
        Counting listener = new Counting();
        return new Replayed(FormReplay.runFull(form, listener, new KeyIndex(Counted::new)), listener);
    }

    /** Reads {@code in} (an etcd db or kine's state.db). */
    static StoreTally read(Pass.Input in) throws IOException {
        if (in.kind() == Store.Kind.ETCD_DB) {
            try (EtcdDb e = EtcdDb.openDatabase(in.file())) {
                EtcdDbWal.Summary[] sum = {null};
                Replayed r = replay(sink -> sum[0] = EtcdDbWal.emit(e, sink));
                if (e.readAgain()) r = replay(sink -> sum[0] = EtcdDbWal.emit(e, sink)); // the salvage past the tree
                Store store = e.store(in.file(), sum[0].revisions());
                StoreHistory.Source source = new StoreHistory.Source(Store.Kind.ETCD_DB, in.file(),
                        new StoreHistory.EtcdFacts(e.bolt().meta(), e.compactRevision(), e.consistentIndex(), e.leases(), e.damage(), sum[0]), null, store);
                return new StoreTally(source, Account.ofForm(store, r.result(), r.listener()), r.result().full(), r.listener().applied);
            }
        }
        if (in.kind() != Store.Kind.KINE) throw new IllegalArgumentException(in.file() + " is a WAL: its tallies are its history's");
        try (KineDb k = KineDb.open(in.file(), "waldoctor")) {
            // SQLite's own check beside the rows' read, as walverify makes it: one account of the db's damage.
            java.util.concurrent.CompletableFuture<List<String>> check = KineCheck.quickCheckAsync(k);
            KineHistoryWal.Summary[] sum = {null};
            Replayed r;
            List<String> quick;
            try {
                r = replay(sink -> sum[0] = KineHistoryWal.emit(k, sink));
            } finally {
                quick = check.join();
            }
            if (k.salvageInstead(sum[0].unreadable(), sum[0].rows())) r = replay(sink -> sum[0] = KineHistoryWal.emit(k, sink));
            Store store = sum[0].store(in.file(), java.nio.file.Files.size(in.file()), KineCheck.damage(k, quick, sum[0]), k.wal().facts());
            StoreHistory.Source source = new StoreHistory.Source(Store.Kind.KINE, in.file(), null, sum[0], store);
            return new StoreTally(source, Account.ofForm(store, r.result(), r.listener()), r.result().full(), r.listener().applied);
        }
    }

    @Override
    public Account account() {
        return account;
    }

    @Override
    public StoreHistory.Source source() {
        return source;
    }

    @Override
    public LeaseMetadata leaseMetadata() {
        return state.leases();
    }

    @Override
    public long revision() {
        return state.revision();
    }

    @Override
    public long compactRevision() {
        return state.compactRevision();
    }

    @Override
    public Map<DamageKind, Integer> findingCounts() {
        return state.findingCounts();
    }

    @Override
    public void forEachKey(StoreHistory.KeyVisitor v) {
        state.keys().forEach(k -> {
            Counted c = (Counted) k;
            if (c.writes == 0 && !c.live()) return;
            v.key(c.key(), c.writes, c.live(), c.valueLength());
        });
    }

    @Override
    public void forEachAppliedRevision(LongConsumer v) {
        for (int i = 0, n = applied.size(); i < n; i++) v.accept(applied.get(i));
    }

    @Override
    public Path leftoverCompaction() {
        return null;
    }

    @Override
    public void close() {
        // Nothing held open: the store was read and closed.
    }
}
