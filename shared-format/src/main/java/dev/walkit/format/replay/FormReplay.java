package dev.walkit.format.replay;

import dev.walkit.format.CrcRange;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordSink;
import dev.walkit.format.RecordView;
import dev.walkit.format.StagedRecord;
import dev.walkit.format.group.TransactionGrouper;
import dev.walkit.format.WalEntry;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A store's WAL form (an etcd db's, kine's: {@code EtcdDbWal.emit}, {@code KineHistoryWal.emit}) replayed as it is
 * made, with no file between: for a check of the history by the rules (walverify), which reads no value, so the
 * store copies none out ({@link RecordSink#readsValues()}). As for a WAL file (walverify's semantic level), the light
 * replay ({@link CleanReplay}) takes the form first, each record staged as its WAL form would read ({@link StagedRecord}:
 * the fields it reads from the buffer written, the others given as decoded, no value, no CRC); at the first thing it would report, the form is made again and
 * replayed by {@link Replayer}, the one place findings are made. So a clean store costs one light pass, and its
 * report is the same either way. An empty form is a store with no revision.
 */
public final class FormReplay {
    /** Gives a store's WAL form to a sink; called a second time when the light replay stops. */
    @FunctionalInterface
    public interface Form {
        void emit(RecordSink sink) throws IOException;
    }

    /** What the replay found, as {@link Replayer} reports it. */
    /**
     * What the replay of the form made: its counts, and the replay that made them: {@code clean} when the light replay
     * took the whole form, else {@code full} (its listener told everything the replay did).
     */
    public record Result(long transactions, long firstRevision, long revision, long compactRevision, long liveKeys,
            long tombstones, List<Finding> findings, CleanReplay clean, Replayer full) {
    }

    private FormReplay() {
    }

    public static Result run(Form form) throws IOException {
        return run(form, null);
    }

    /** {@link #run(Form)}; when the form is replayed by {@link Replayer}, {@code listener} is told what it does (every record read too). */
    public static Result run(Form form, Replayer.Listener listener) throws IOException {
        Light light = new Light();
        try {
            form.emit(light);
        } catch (Stopped s) {
            // The light replay met something to report: the full replay below reports it.
        }
        CleanReplay c = light.clean;
        if (c.irregularity() == null && c.end()) {
            return new Result(c.transactions(), c.firstTransactionRevision(), c.revision(), c.compactRevision(), c.liveCount(),
                    c.tombstoneCount(), List.of(), c, null);
        }
        Replayer r = full(form, listener == null ? new Replayer.Listener() { } : listener);
        return new Result(r.transactions(), r.firstRevision(), r.revision(), r.compactRevision(), r.keys().liveCount(),
                r.keys().tombstoneCount(), r.findings(), null, r);
    }

    /**
     * The form replayed by {@link Replayer} alone (no light replay first), into {@code keys} (a key state of the caller's
     * kind): for a caller that keeps something per key as the replay applies it. The same counts as {@link #run}.
     */
    public static Result runFull(Form form, Replayer.Listener listener, KeyIndex keys) throws IOException {
        Replayer r = full(form, listener == null ? new Replayer.Listener() { } : listener, keys);
        return new Result(r.transactions(), r.firstRevision(), r.revision(), r.compactRevision(), r.keys().liveCount(),
                r.keys().tombstoneCount(), r.findings(), null, r);
    }

    /** The form replayed by {@link Replayer}: every finding made. */
    static Replayer full(Form form) throws IOException {
        return full(form, new Replayer.Listener() { });
    }

    static Replayer full(Form form, Replayer.Listener listener) throws IOException {
        return full(form, listener, new KeyIndex());
    }

    private static Replayer full(Form form, Replayer.Listener listener, KeyIndex keys) throws IOException {
        long[] offset = {0};
        long[] markerAt = {-1};
        byte[][] marker = {null};
        Replayer r = new Replayer(Replayer.Options.defaults(), (at, len) -> at == markerAt[0] ? marker[0] : new byte[len],
                listener, keys);
        TransactionGrouper g = new TransactionGrouper(r);
        form.emit(new RecordSink() {
            @Override
            public boolean readsValues() {
                return false;
            }

            @Override
            public boolean countsVersions() {
                return true;
            }

            @Override
            public void append(KeyValue kv) {
                if (isMarker(kv)) {
                    markerAt[0] = offset[0];
                    marker[0] = kv.value();
                }
                append(kv, kv.value().length);
            }

            @Override
            public void append(KeyValue kv, int valueLength) {
                long at = offset[0];
                KeyValue k = counted(kv) ? kv.withVersion(countedVersion(r.keys().get(kv.key()), kv)) : kv;
                int length = RecordEncoder.recordLength(k, valueLength);
                offset[0] += length;
                listener.read(at, k.modRevision());
                g.accept(new WalEntry(at, length, k.flags(), k.modRevision(), k.key(), k.createRevision(), k.version(), k.lease(),
                        at, valueLength, CrcRange.STANDARD));
            }
        });
        g.end();
        r.end(offset[0]);
        return r;
    }

    /** A put whose version its sink counts ({@link RecordSink#countsVersions}): given with version 0. */
    private static boolean counted(KeyValue kv) {
        return kv.version() == 0 && (kv.flags() & (Flags.DELETE | Flags.SNAPSHOT)) == 0;
    }

    /**
     * {@link CleanReplay#countedVersion}'s rule over {@link Replayer}'s state ({@code s}: the key's, null if never
     * seen). A transaction's earlier records are not applied yet when a later one of the same key is given: a store
     * that counts on this gives one record of a key a transaction (kine: a transaction a row).
     */
    private static long countedVersion(KeyState s, KeyValue kv) {
        return Rules.countedVersion(kv.createRevision() == kv.modRevision(), s != null && s.live(), s == null ? 0 : s.version());
    }

    /** The only record whose value replay reads: the snapshot marker's count. */
    private static boolean isMarker(KeyValue kv) {
        return kv.key().length == 0 && (kv.flags() & Flags.SNAPSHOT) != 0;
    }

    /** The light replay's sink: each record staged in one buffer and read through one view, nothing kept. */
    private static final class Light implements RecordSink {
        final CleanReplay clean = CleanReplay.whole();
        private final RecordView view = new RecordView();
        private final RecordEncoder encoder = new RecordEncoder();
        private final StagedRecord staged = new StagedRecord();
        private ByteBuffer buf = ByteBuffer.allocate(1 << 8).order(ByteOrder.LITTLE_ENDIAN);
        private long offset;

        @Override
        public boolean readsValues() {
            return false;
        }

        @Override
        public void append(KeyValue kv) throws IOException {
            if (!isMarker(kv)) {
                append(kv, kv.value().length);
                return;
            }
            int length = RecordEncoder.recordLength(kv);
            room(length);
            encoder.encode(kv, buf, 0);
            take(length);
        }

        @Override
        public boolean countsVersions() {
            return true;
        }

        @Override
        public void append(KeyValue kv, int valueLength) throws IOException {
            long version = counted(kv) ? clean.countedVersion(kv.key(), kv.createRevision(), kv.modRevision()) : kv.version();
            RecordView v = staged.stage(kv, version, valueLength, offset);
            if (!clean.accept(v)) throw Stopped.INSTANCE;
            offset += v.length();
        }

        private void room(int length) {
            if (buf.capacity() < length) buf = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        }

        /** The record encoded at the buffer's start (the marker, whose value the light replay reads). */
        private void take(int length) throws Stopped {
            if (!clean.accept(view.wrap(buf, 0, offset))) throw Stopped.INSTANCE;
            offset += length;
        }
    }

    /** Ends a form's emission early: the light replay stopped. */
    private static final class Stopped extends IOException {
        static final Stopped INSTANCE = new Stopped();

        private Stopped() {
            super("the light replay stopped", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
