package dev.walkit.format.pass;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.DamageKind;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.account.Store;
import dev.walkit.format.account.WalKeys;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.policy.RecoveryPolicy;
import dev.walkit.format.replay.DropReason;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.LeaseMetadata;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.format.replay.SnapshotPrefixWriter;
import dev.walkit.format.replay.StateDigest;
import dev.walkit.format.replay.ValueArena;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The pass under a recovery policy: the log replayed with what the policy keeps ({@link RecoveryPolicy#replayOptions}),
 * each kept transaction handed to a writer as it is applied, then the state it left, the account, what the policy says
 * of it, and the state's snapshot form. What walrecover reads through; it never sees the replay, a key's state or the
 * account's listener.
 */
public final class PolicyReplay {
    /** What a key's state holds while the replay runs, for a writer that re-encodes a record (v1 as v2). */
    @FunctionalInterface
    public interface KeyFacts {
        /** The key's create_revision and version as the replay holds them now, or null for a key it does not hold. */
        long[] createAndVersion(byte[] key);
    }

    /** What a writer of the kept log sees as the replay runs. */
    public interface Listener {
        /** A record read whole at {@code offset} (a progress bar). */
        default void read(long offset, long revision) {
        }

        /** A transaction kept and applied, with the state its records left. */
        default void applied(Transaction txn, KeyFacts keys) {
        }

        /** A kept record breaks a rule of a healthy log as it stands (kept under the policy). */
        default void keptBreak(Finding f, byte[] key) {
        }

        /** A complete transaction the rules or the policy dropped. */
        default void dropped(Transaction txn) {
        }
    }

    private final Replayer state;
    private final AccountListener account;
    private final WalFile in;
    private final WalFormat format;
    private final long records;

    private PolicyReplay(Replay.Result res, AccountListener account, WalFile in) {
        this.state = res.state();
        this.account = account;
        this.in = in;
        this.format = res.format();
        this.records = res.records();
    }

    /** Replays {@code in} (sniffed as {@code format}) under {@code policy} up to {@code toRevision}, telling {@code l}. */
    public static PolicyReplay run(WalFile in, WalFormat format, ReaderOptions ro, RecoveryPolicy policy, long toRevision, Listener l) throws IOException {
        return run(in, format, ro, policy.replayOptions(toRevision), l);
    }

    /** As above, under {@code options} ({@link Pass#replay}: the rules' own, or a policy's over the whole log). */
    static PolicyReplay run(WalFile in, WalFormat format, ReaderOptions ro, Replayer.Options options, Listener l) throws IOException {
        AccountListener account = new AccountListener() {
            @Override
            public void read(long offset, long revision) {
                super.read(offset, revision);
                l.read(offset, revision);
            }

            @Override
            public void applied(Transaction txn, KeyIndex keys) {
                l.applied(txn, key -> {
                    KeyState k = keys.get(key);
                    return k == null ? null : new long[] {k.createRevision(), k.version()};
                });
            }

            @Override
            public void keptBreak(Finding f, byte[] key) {
                super.keptBreak(f, key);
                l.keptBreak(f, key);
            }

            @Override
            public void dropped(Transaction txn, DropReason why) {
                super.dropped(txn, why);
                l.dropped(txn);
            }
        };
        return new PolicyReplay(Replay.run(in, format, ro, options, account), account, in);
    }

    /**
     * The account of what was read under the policy ({@code store}: the store the input is the WAL form of, or null for
     * a WAL, whose leftover compaction is said as the pass says it). A store's form is made, not read: no span of it
     * is torn at its end.
     */
    public Account account(Store store) {
        Account a = account.account(store != null ? store : Store.wal(in.path(), in.size(), format.label()), state,
                store != null ? Long.MAX_VALUE : in.size(), WalKeys.of(in, format));
        java.nio.file.Path leftover = store == null ? Wal.leftoverCompaction(in.path()) : null;
        return leftover == null ? a : a.withFinding(Pass.leftoverFinding(leftover), in.size());
    }

    public WalFormat format() {
        return format;
    }

    /** Records read. */
    public long records() {
        return records;
    }

    public long lastRevisionRead() {
        return account.lastRevisionRead();
    }

    /** The keys whose chain broke (the account names them as affected). */
    public List<byte[]> brokenChains() {
        return account.brokenChains();
    }

    public long revision() {
        return state.revision();
    }

    public long compactRevision() {
        return state.compactRevision();
    }

    /** The revision a snapshot prefix stands for (its marker's, or its records' highest when the marker is lost); 0: none. */
    public long prefixRevision() {
        return state.prefixRevision();
    }

    public List<DamageSpan> damage() {
        return state.damage();
    }

    /** The first kept record that breaks a rule as it stands, or null. */
    public Finding firstKeptBreak() {
        return state.firstKeptBreak();
    }

    public long keptBreaks() {
        return state.keptBreaks();
    }

    public long liveCount() {
        return state.keys().liveCount();
    }

    /** The leases the live keys hold, each granted {@code ttlSeconds}. */
    public LeaseMetadata leases(long ttlSeconds) {
        return state.leases(ttlSeconds);
    }

    /** Why {@code policy} writes nothing of what was kept, or null. */
    public String refusal(RecoveryPolicy policy) {
        return policy.refusal(state, in.size());
    }

    /** The key's state at the end as a live key, or null when it is not live. */
    public Pass.LiveKey live(byte[] key) {
        KeyState k = state.keys().get(key);
        return k == null || !k.live() ? null : liveKey(k);
    }

    /** The live keys in key order: a view, each read when asked. */
    public List<Pass.LiveKey> live() {
        List<KeyState> live = state.keys().sortedLive();
        return new java.util.AbstractList<>() {
            @Override
            public Pass.LiveKey get(int i) {
                return liveKey(live.get(i));
            }

            @Override
            public int size() {
                return live.size();
            }
        };
    }

    private static Pass.LiveKey liveKey(KeyState k) {
        return new Pass.LiveKey(k.key(), k.valueOffset(), k.valueLength(), k.createRevision(), k.modRevision(), k.version(), k.lease());
    }

    /** The state digest (every live key's fields and value, the revision), values read back from the input. */
    public String stateDigest() {
        return StateDigest.of(state.keys(), state.revision(), in::readFully);
    }

    /** Bytes the snapshot form of the state takes at most. */
    public long snapshotBytes() {
        long need = RecordLayout.OVERHEAD + 64;
        for (KeyState k : state.keys().sortedLive()) need += RecordLayout.OVERHEAD + 64 + k.key().length + k.valueLength();
        return need;
    }

    /** Writes the state's snapshot form to {@code out}: a snapshot prefix at the final revision, each live key once, in key order. */
    public void writeSnapshot(dev.walkit.format.RecordSink out) throws IOException {
        List<KeyState> live = state.keys().sortedLive();
        SnapshotPrefixWriter prefix = SnapshotPrefixWriter.begin(out, state.revision(), live.size());
        // Values read in offset order, in runs, a chunk of keys at a time; written in key order.
        for (int a = 0, b; a < live.size(); a = b) {
            b = ValueArena.chunkEnd(live, a);
            ValueArena values = ValueArena.read(live, a, b, in::readFully);
            for (int i = a; i < b; i++) {
                KeyState k = live.get(i);
                prefix.append(new KeyValue(Flags.SNAPSHOT, k.key(), k.createRevision(), k.modRevision(), k.version(), values.value(i - a), k.lease()));
            }
        }
        prefix.end();
    }

    /** How many findings of each kind the rules made. */
    public Map<DamageKind, Integer> findingCounts() {
        return state.findingCounts();
    }
}
