package dev.walkit.migrate;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Wal;
import dev.walkit.format.pass.Follow;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A live WAL followed by the one replay ({@link WalFollower}): records appended are read as the store fsyncs them, a
 * record cut short waits (a write in progress), a compaction's rename is followed, and each applied transaction is
 * one of the source's. The keys under the prefix and their values are held here as the follow has given them, so
 * that each change says what the key held before, and the state at the follow's revision can be copied and verified.
 * Damage in the log ends the follow: walverify and walrecover first.
 */
final class WalFeed implements ChangeFeed {
    /** A record cut short for this long is a torn tail (damage), not a write in progress. */
    static final long TORN_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** A key's value and lease as the follow has given them. */
    private record Held(byte[] value, long lease) {
    }

    /** A transaction read: its records' keys and values, not yet given (the held values are before it). */
    private record Read(long revision, List<Raw> records, long seenNanos) {
    }

    private record Raw(byte[] key, byte[] value, long lease) {
    }

    private final Path path;
    private final byte[] prefix;
    private final Follow follower;
    private final TreeMap<byte[], Held> held = new TreeMap<>(java.util.Arrays::compareUnsigned);
    private final ArrayDeque<Read> read = new ArrayDeque<>();
    private List<Raw> current = new ArrayList<>();
    /** The revision of {@link #held}; -1 before any transaction. */
    private long heldRevision = -1;
    /** Transactions up to this revision go straight into {@link #held} (the state to copy); later ones are given by poll. */
    private long position = Long.MAX_VALUE;
    private String failure;
    private long head;

    private WalFeed(Path path, byte[] prefix) throws IOException {
        this.path = path;
        this.prefix = prefix;
        this.follower = Follow.open(path, new Listener(), TORN_AFTER_NANOS);
    }

    /** Opens the WAL at {@code path} (a file or data directory) to follow its keys under {@code prefix}. */
    static WalFeed open(Path path, String prefix) throws IOException {
        return new WalFeed(Wal.resolve(path), prefix.getBytes(StandardCharsets.UTF_8));
    }

    private final class Listener implements Follow.Listener {
        @Override
        public void change(byte[] key, long revision, boolean delete, long valueOffset, int valueLength, long lease) {
            if (!Migrator.startsWith(key, prefix)) return;
            current.add(new Raw(key, delete ? null : follower.file().read(valueOffset, valueLength), lease));
        }

        @Override
        public void applied(long revision, boolean snapshot) {
            List<Raw> records = current;
            current = new ArrayList<>();
            if (snapshot && revision > position) {
                fail("the WAL was compacted to revision " + revision + ", past revision " + position
                        + " that this migration had reached: what changed in between cannot be read; migrate again into an empty target");
            }
            head = Math.max(head, revision);
            if (records.isEmpty()) return;
            if (revision <= position) {
                hold(records, revision);
            } else {
                read.add(new Read(revision, records, System.nanoTime()));
            }
        }

        @Override
        public void dropped(long revision) {
            current = new ArrayList<>();
        }

        @Override
        public void damage(DamageSpan span) {
            fail("the WAL is damaged at offset " + span.offset() + " (" + span.length() + " bytes): walverify and walrecover first");
        }
    }

    private void fail(String why) {
        if (failure == null) failure = path + ": " + why;
    }

    private void hold(List<Raw> records, long revision) {
        for (Raw r : records) {
            if (r.value() == null) held.remove(r.key());
            else held.put(r.key(), new Held(r.value(), r.lease()));
        }
        heldRevision = revision;
    }

    /** Reads what the store has appended; a failure found is thrown. */
    private void readOn() throws IOException {
        follower.poll(System.nanoTime());
        if (failure != null) throw new IOException(failure);
    }

    @Override
    public String describe() {
        return "WAL " + path + " (followed)";
    }

    @Override
    public long position(long revision, long notAfter) throws IOException {
        position = revision == LATEST ? notAfter : revision;
        long before;
        do { // everything there now, to its last whole record
            before = follower.bytes();
            readOn();
        } while (follower.bytes() > before);
        if (revision == LATEST) {
            position = Math.max(0, Math.min(head, notAfter)); // what was read held up to there, the rest given by poll
        } else if (head < revision) {
            throw ChangeFeed.ahead(path.toString(), revision, head);
        }
        heldRevision = position;
        return position;
    }

    @Override
    public KeySource state(long revision) throws IOException {
        if (revision != heldRevision) throw new IllegalStateException("the WAL's state is held at revision " + heldRevision + ", not " + revision);
        Iterator<Map.Entry<byte[], Held>> it = held.entrySet().iterator();
        return KeySource.of("WAL " + path + " at revision " + revision, revision, new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public SourceKey next() {
                Map.Entry<byte[], Held> e = it.next();
                return new SourceKey(e.getKey(), e.getValue().value(), 0, revision, 1, e.getValue().lease());
            }
        });
    }

    @Override
    public List<SourceTxn> poll(long waitMillis, long upTo) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        for (;;) {
            if (read.isEmpty() || read.peekFirst().revision() > upTo) readOn();
            List<SourceTxn> out = new ArrayList<>();
            while (!read.isEmpty() && read.peekFirst().revision() <= upTo) {
                Read r = read.pollFirst();
                List<Change> changes = new ArrayList<>(r.records().size());
                for (Raw x : r.records()) {
                    Held before = held.get(x.key());
                    changes.add(new Change(x.key(), x.value(), before == null ? null : before.value(), true, x.lease()));
                }
                hold(r.records(), r.revision());
                out.add(new SourceTxn(r.revision(), changes, r.seenNanos()));
            }
            if (!out.isEmpty() || System.nanoTime() >= deadline) return out;
            try {
                Thread.sleep(Math.min(20, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    @Override
    public long head() {
        return head;
    }

    @Override
    public long headNow() throws IOException {
        readOn();
        return head;
    }

    @Override
    public boolean leaseIsTtl() {
        return false;
    }

    @Override
    public void close() throws IOException {
        follower.close();
    }
}
