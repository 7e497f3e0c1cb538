package dev.walkit.verify;

import dev.walkit.format.Background;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The frame and decode levels on both cores: a second thread, over its own handle, reads the second
 * half of the file from the first valid record at or past the middle (as resync finds it) and keeps
 * what it saw in order: runs of valid records and damaged spans. This thread reads the first half
 * as usual up to the first record boundary at or past the middle. When that boundary is where the
 * second thread started (the normal case), the second half's events follow; otherwise (damage
 * across the middle that resync read differently, or a crc range bug seen in the first half) this
 * thread simply reads on to the end and the second thread's work is dropped. Either way the report
 * is the one a single pass makes. A damaged span across the middle is scanned once: when this thread's
 * resync finds nothing valid before the middle, the second thread's start is its answer
 * ({@link WalReader#resyncHorizon}).
 */
final class SplitScan {
    /** Below this, one thread: the second handle and thread cost more than they save. */
    static final long MIN_SPLIT = dev.walkit.format.replay.CleanScan.MIN_SPLIT;

    /** How a scan went: one thread; two halves joined; or two threads, the first reading on past the middle. */
    enum Outcome { ONE_THREAD, JOINED, READ_ON }

    /** What one thread sees, in order: records summarised as runs, and damaged spans. */
    interface Sink {
        void records(long count, long transactions, long firstRevision, long lastRevision, long maxRevision);

        void damage(DamageSpan d);
    }

    private record Run(long count, long transactions, long firstRevision, long lastRevision, long maxRevision) {
    }

    /** The second half: where it started and what it saw. */
    private record Half(long start, List<Object> events) {
    }

    private SplitScan() {
    }


    /**
     * Reads {@code file} and reports to {@code sink} in file order; {@code compactRevision} receives the
     * revision of a snapshot marker at offset 0. Files of {@code minSplit} bytes or more are read in two halves.
     */
    static Outcome scan(WalFile file, ReaderOptions ro, Sink sink, java.util.function.LongConsumer compactRevision, long minSplit) throws IOException {
        boolean split = file.size() >= minSplit && Runtime.getRuntime().availableProcessors() >= 2;
        long middle = split ? file.size() / 2 : Long.MAX_VALUE;
        CompletableFuture<Long> secondStart = new CompletableFuture<>();
        CompletableFuture<Half> second = !split ? null
                : Background.start("walverify-second-half", () -> secondHalf(file, ro, middle, secondStart));
        WalReader reader = new WalReader(file, ro);
        // Damage across the middle: the second thread's resync from the middle answers this one's.
        if (split) reader.resyncHorizon(middle, secondStart);
        Batch b = new Batch(sink);
        boolean rangeBug = false;
        long boundary = -1;
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (x instanceof RecordView v) {
                if (v.offset() == 0 && v.isSnapshot()) compactRevision.accept(v.revision());
                b.record(v);
            } else {
                DamageSpan d = (DamageSpan) x;
                rangeBug |= d.kind() == DamageKind.CRC_RANGE_BUG;
                b.damage(d);
            }
            long p = reader.position();
            if (p >= middle) {
                boundary = p;
                break;
            }
        }
        Half h = boundary < 0 || rangeBug || ro.acceptCrc() != null ? null : Background.join(second, "the second half");
        if (h != null && h.start() == boundary) {
            b.flush();
            for (Object e : h.events()) {
                if (e instanceof Run r) sink.records(r.count(), r.transactions(), r.firstRevision(), r.lastRevision(), r.maxRevision());
                else sink.damage((DamageSpan) e);
            }
            return Outcome.JOINED;
        }
        if (second != null) second.cancel(false);
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (x instanceof RecordView v) b.record(v);
            else b.damage((DamageSpan) x);
        }
        b.flush();
        return second == null ? Outcome.ONE_THREAD : Outcome.READ_ON;
    }

    private static Half secondHalf(WalFile first, ReaderOptions ro, long middle, CompletableFuture<Long> started) {
        try (WalFile file = WalFile.open(first.path(), ro.maxRecLen())) {
            WalReader reader = new WalReader(file, ro);
            long start;
            try {
                start = reader.resyncFrom(middle);
            } catch (RuntimeException e) {
                started.completeExceptionally(e);
                throw e;
            }
            started.complete(start);
            List<Object> events = new ArrayList<>();
            Batch b = new Batch(new Sink() {
                @Override
                public void records(long count, long transactions, long firstRevision, long lastRevision, long maxRevision) {
                    events.add(new Run(count, transactions, firstRevision, lastRevision, maxRevision));
                }

                @Override
                public void damage(DamageSpan d) {
                    events.add(d);
                }
            });
            for (ReadResult x; (x = reader.next()) != null; ) {
                if (x instanceof RecordView v) b.record(v);
                else b.damage((DamageSpan) x);
            }
            b.flush();
            return new Half(start, events);
        } catch (IOException e) {
            started.completeExceptionally(e);
            throw new UncheckedIOException(e);
        }
    }

    /** Gathers consecutive records into one run for the sink. */
    private static final class Batch {
        private final Sink sink;
        private long count;
        private long transactions;
        private long first;
        private long last;
        private long max;

        Batch(Sink sink) {
            this.sink = sink;
        }

        void record(RecordView v) {
            long rev = v.revision();
            if (count == 0) {
                first = rev;
                max = rev;
            }
            count++;
            if (!v.isTxnCont()) transactions++;
            last = rev;
            if (rev > max) max = rev;
        }

        void damage(DamageSpan d) {
            flush();
            sink.damage(d);
        }

        void flush() {
            if (count > 0) sink.records(count, transactions, first, last, max);
            count = 0;
            transactions = 0;
        }
    }
}
