package dev.walkit.format.scan;

import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A v2 log read on both cores, with the result one pass in file order gives: the one split scan of the tools
 * (walverify's frame and decode levels, and the light replay of walverify's semantic level and of walrecover's
 * read-back).
 *
 * <p>A second thread, over its own handle, resyncs from the split point (called the middle below), passes over
 * the first unit it reads there (a record, or for a replay a transaction: {@link Parts#endsUnit}) and reads the
 * rest into a later {@link Part}. This thread reads the first part up to the end of the first unit that starts at
 * or past the middle: the same unit, in the normal case, so the parts meet and are {@linkplain Parts#join joined}.
 * When they do not meet (damage across the middle that the two resyncs read differently) or the later part cannot
 * be joined (a crc range bug seen before the middle; a replay the later part could not judge alone), this thread
 * reads on to the end by itself. A damaged span across the middle is scanned once: when this thread's resync finds
 * nothing valid before the middle, the second thread's start is its answer ({@link WalReader#resyncHorizon}).
 * When a part cannot go on ({@link Part#take} false), the scan stops, on both threads.
 */
public final class SplitScan {
    /** Below this, one thread: the second handle and thread cost more than they save. */
    public static final long MIN_SPLIT = 64L << 20;

    /** How a scan went. */
    public enum Outcome {
        /** One thread read the whole log. */
        ONE_THREAD,
        /** Two parts, joined at the middle. */
        JOINED,
        /** Two threads, but this one read on past the middle by itself. */
        READ_ON,
        /** A part could not go on: the scan stopped there. */
        STOPPED
    }

    /** What a join of the later part onto the first says. */
    public enum Join {
        /** Joined: the first part now holds the whole log. */
        JOINED,
        /** Not joined: the first part reads on to the end by itself. */
        READ_ON,
        /** The two together cannot go on. */
        STOPPED
    }

    /** What reads one part of the log. */
    public interface Part {
        /** Takes the next result, in file order; false when this part cannot go on. */
        boolean take(ReadResult x);
    }

    /** What a kind of scan does with its parts. */
    public interface Parts<P extends Part> {
        /** A part for the later half. */
        P later();

        /** Whether {@code v} ends a unit: a later part starts after one, the first ends with one. */
        boolean endsUnit(RecordView v);

        /** Joins {@code later}, read from where {@code first} ended to the end of the log (it took every result), onto {@code first}. */
        Join join(P first, P later);

        /**
         * Whether {@code later}, which could not go on, stops the first part too (false: the first may still read
         * on by itself and judge otherwise).
         */
        boolean stopsTheFirst(P later);

        /** The first part is stopped because {@code later} could not go on ({@link #stopsTheFirst}). */
        void stopped(P first, P later);
    }

    /** The later part: the offset it starts at (the end of the file if none), what it read, and whether it could not go on. */
    private record Later<P>(long start, P part, boolean stopped) {
    }

    private SplitScan() {
    }

    /**
     * Reads {@code file} into {@code first} (and, for a file of {@code minSplit} bytes or more on two cores, a later
     * part from {@code share} of the file on, joined), on a second thread named {@code thread}.
     */
    public static <P extends Part> Outcome scan(WalFile file, ReaderOptions ro, P first, Parts<P> parts, double share, long minSplit,
                                                String thread) throws IOException {
        boolean split = file.size() >= minSplit && Runtime.getRuntime().availableProcessors() >= 2;
        long middle = split ? (long) (file.size() * share) : Long.MAX_VALUE;
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Long> laterStart = new CompletableFuture<>();
        CompletableFuture<Later<P>> second = !split ? null
                : Background.start(thread, () -> later(file, ro, parts, middle, laterStart, stop));
        WalReader reader = new WalReader(file, ro);
        if (split) reader.resyncHorizon(middle, laterStart);
        Outcome out = null;
        long boundary = -1;
        boolean laterStopped = false;
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (!first.take(x)) {
                out = Outcome.STOPPED;
                break;
            }
            if (x instanceof RecordView v && v.offset() >= middle && parts.endsUnit(v)) {
                boundary = reader.position();
                break;
            }
            if (stop.get()) {
                laterStopped = true;
                break;
            }
        }
        if (out == null && (boundary >= 0 || laterStopped)) {
            Later<P> l = Background.join(second, "the second half");
            if (l.stopped()) {
                if (parts.stopsTheFirst(l.part())) {
                    parts.stopped(first, l.part());
                    out = Outcome.STOPPED;
                }
            } else if (l.start() == boundary) {
                Join j = parts.join(first, l.part());
                if (j == Join.JOINED) out = Outcome.JOINED;
                else if (j == Join.STOPPED) out = Outcome.STOPPED;
            }
        }
        if (out == null) {
            // No second part, or one not joined: this thread reads on to the end by itself.
            out = second == null ? Outcome.ONE_THREAD : Outcome.READ_ON;
            for (ReadResult x; (x = reader.next()) != null; ) {
                if (!first.take(x)) {
                    out = Outcome.STOPPED;
                    break;
                }
            }
        }
        if (second != null && !second.isDone()) {
            stop.set(true);
            Background.join(second, "the second half");
        }
        return out;
    }

    private static <P extends Part> Later<P> later(WalFile first, ReaderOptions ro, Parts<P> parts, long middle,
                                                   CompletableFuture<Long> started, AtomicBoolean stop) {
        try (WalFile file = WalFile.open(first.path(), ro.maxRecLen())) {
            file.onFill(first.onFill()); // the second part's reads count toward the same progress
            WalReader reader = new WalReader(file, ro);
            try {
                started.complete(reader.resyncFrom(middle));
            } catch (RuntimeException e) {
                started.completeExceptionally(e);
                throw e;
            }
            P p = parts.later();
            long start = -1;
            boolean stopped = false;
            for (ReadResult x; (x = reader.next()) != null; ) {
                if (start < 0) {
                    // The unit across the middle, and any damage before it ends, are the first part's to read: this
                    // part starts after it.
                    if (x instanceof RecordView v && parts.endsUnit(v)) start = reader.position();
                    continue;
                }
                if (!p.take(x)) {
                    stopped = true;
                    if (parts.stopsTheFirst(p)) stop.set(true);
                    break;
                }
                if (stop.get()) break; // the first part stopped: what this one read is not needed
            }
            return new Later<>(start < 0 ? file.size() : start, p, stopped);
        } catch (IOException e) {
            started.completeExceptionally(e);
            stop.set(true);
            throw new UncheckedIOException(e);
        }
    }
}
