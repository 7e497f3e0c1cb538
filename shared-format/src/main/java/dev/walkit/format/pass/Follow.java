package dev.walkit.format.pass;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.account.Store;
import dev.walkit.format.account.WalKeys;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.DropReason;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replayer;
import dev.walkit.format.replay.WalFollower;
import dev.walkit.format.scan.SplitScan;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The pass over a live WAL as it grows: the file read to its last whole record, then what the store appends, replayed
 * as {@link Pass#read} replays (the same rules, the same account at the end), with a tail held back until it is
 * complete or stays cut past a grace period. What {@code walverify --follow}, {@code waldoctor records --follow} and
 * walmigrate's followed WAL read through; none of them sees the replay.
 */
public final class Follow implements Closeable {
    /** What a follow tells as it reads: each a default, so that a tool listens only for what it shows. */
    public interface Listener {
        /** A record read whole at {@code offset}, of {@code revision}, before the rules decide on its transaction. */
        default void read(long offset, long revision) {
        }

        /** A damaged span, as the reader found it. */
        default void damage(DamageSpan span) {
        }

        /** A damaged span located between the revisions around it (as the account lists it). */
        default void located(DamageLocator.Located located) {
        }

        /**
         * A record applied: its key, revision, whether a DELETE, and for a PUT where its value sits in {@link #file()}
         * and its lease.
         */
        default void change(byte[] key, long revision, boolean delete, long valueOffset, int valueLength, long lease) {
        }

        /** A transaction applied whole ({@code snapshot}: a compaction's snapshot prefix), after its records' {@link #change}s. */
        default void applied(long revision, boolean snapshot) {
        }

        /** A transaction the rules dropped: its records' changes are not applied. */
        default void dropped(long revision) {
        }

        /** The file at {@code path} is another file now, or shorter: read again from its start, past {@code revision}. */
        default void replaced(Path path, String why, long revision) {
        }
    }

    private final Path walPath;
    private final AccountListener account;
    private final WalFollower follower;

    private Follow(Path walPath, Listener l, long tornAfterNanos) throws IOException {
        this.walPath = walPath;
        this.account = new AccountListener(l::located) {
            @Override
            public void read(long offset, long revision) {
                super.read(offset, revision);
                l.read(offset, revision);
            }

            @Override
            public void damage(DamageSpan span) {
                super.damage(span);
                l.damage(span);
            }

            @Override
            public void recordApplied(long offset, long revision, boolean delete, KeyState s) {
                l.change(s.key(), revision, delete, delete ? -1 : s.valueOffset(), delete ? 0 : s.valueLength(), delete ? 0 : s.lease());
            }

            @Override
            public void applied(Transaction txn, KeyIndex keys) {
                l.applied(txn.revision(), txn.isSnapshot());
            }

            @Override
            public void dropped(Transaction txn, DropReason why) {
                super.dropped(txn, why);
                l.dropped(txn.revision());
            }
        };
        this.follower = new WalFollower(walPath, ReaderOptions.defaults(), account, l::replaced, tornAfterNanos);
    }

    /**
     * Follows the WAL at {@code input} (a file or data directory) from its start; a tail cut for {@code tornAfterNanos}
     * unchanged is damage (a writer that died mid-append), a shorter one is a record in progress.
     */
    public static Follow open(Path input, Listener l, long tornAfterNanos) throws IOException {
        return new Follow(Wal.resolve(input), l, tornAfterNanos);
    }

    /** Reads what was appended since the last poll, at time {@code now} (System.nanoTime); how many bytes that was. */
    public long poll(long now) throws IOException {
        return follower.poll(now);
    }

    /** The file being followed (values are read from it by offset). */
    public WalFile file() {
        return follower.file();
    }

    /** The WAL followed. */
    public Path path() {
        return walPath;
    }

    /** Bytes read to the last whole record. */
    public long bytes() {
        return follower.bytes();
    }

    /** The rules' findings so far, in order (the list grows as the follow reads). */
    public List<Finding> findings() {
        return follower.replayer().findings();
    }

    /** Ends the follow: what was held back is judged (a cut tail is torn now), and the account of all that was read. */
    public PassReport end() throws IOException {
        Replayer s = follower.end();
        long bytes = follower.bytes();
        Account a = account.account(Store.wal(walPath, bytes, WalFormat.V2.label()), s, bytes, WalKeys.of(follower.file(), WalFormat.V2));
        return new PassReport(WalFormat.V2, Level.SEMANTIC, a, Wal.leftoverCompaction(walPath), -1, false, null, SplitScan.Outcome.ONE_THREAD);
    }

    @Override
    public void close() throws IOException {
        follower.close();
    }
}
