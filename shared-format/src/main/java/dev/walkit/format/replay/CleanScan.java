package dev.walkit.format.replay;

import dev.walkit.format.Background;
import dev.walkit.format.DamageSpan;
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
 * The light replay ({@link CleanReplay}) of a whole v2 log, on both cores for a large file: the fast
 * path of walverify's semantic level and of walrecover's read-back. A second thread, over its own
 * handle, reads the second half from the first transaction that starts past the split point
 * ({@link #FIRST_SHARE} of the file, called the middle below), keeping each
 * key's first record there; this thread reads up to that boundary; the halves are then joined as one
 * replay would see them. When the second half cannot judge alone (a snapshot prefix that reaches past
 * the middle) or the halves do not meet, this thread reads on to the end by itself. At the first thing
 * a finding would be made of, on either side, both stop and the caller replays the whole log with
 * {@link Replayer}, which makes the findings: the report is the same either way.
 */
public final class CleanScan {
    /** Below this, one thread: the second handle and thread cost more than they save. */
    public static final long MIN_SPLIT = 64L << 20;

    /**
     * The first thread's share of the file, as measured on a 2 GiB log through bin/ (interleaved runs, 13
     * each): 51% 863 and 939 ms; 49% 894, 50% 986, 52% 954, 53% 965 ms. It follows how long each thread
     * runs the compiler's slower early code: 53% before the key tables changed, 49% before the launcher's
     * JIT directives.
     */
    public static final double FIRST_SHARE = 0.51;

    /** The second half: the offset it starts at (the end of the file if none) and its replay. */
    private record Half(long start, CleanReplay replay) {
    }

    private CleanScan() {
    }

    /**
     * Replays {@code file} with {@code whole} (a {@link CleanReplay#whole()} or {@link CleanReplay#forDigest()};
     * later parts are made by {@link CleanReplay#newPart()}), in two halves when the file has {@code minSplit}
     * bytes or more. Returns {@code whole} holding the state of the whole log, or with its
     * {@link CleanReplay#irregularity()} set when the light replay does not take the log.
     */
    public static CleanReplay scan(WalFile file, ReaderOptions ro, CleanReplay whole) throws IOException {
        return scan(file, ro, whole, MIN_SPLIT);
    }

    /** {@link #scan(WalFile, ReaderOptions, CleanReplay)}, in two halves from {@code minSplit} bytes (tests: 0 or MAX). */
    static CleanReplay scan(WalFile file, ReaderOptions ro, CleanReplay whole, long minSplit) throws IOException {
        boolean split = file.size() >= minSplit && Runtime.getRuntime().availableProcessors() >= 2;
        long middle = split ? (long) (file.size() * FIRST_SHARE) : Long.MAX_VALUE;
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Half> second = !split ? null
                : Background.start("clean-replay-second-half", () -> secondHalf(file, ro, whole.newPart(), middle, stop));
        CleanReplay c = whole;
        WalReader reader = new WalReader(file, ro);
        long boundary = -1;
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (!(x instanceof RecordView v)) {
                c.damage(((DamageSpan) x).offset());
                break;
            }
            if (!c.accept(v)) break;
            if (v.offset() >= middle && !v.isTxnCont()) {
                boundary = reader.position();
                break;
            }
            if (stop.get()) {
                c.abandon("the second half is not clean");
                break;
            }
        }
        boolean ok;
        if (c.irregularity() != null) {
            stop.set(true);
            ok = false;
        } else if (boundary < 0) {
            ok = c.end(); // read to the end alone: the second half is not needed
        } else {
            Half h = Background.join(second, "the second half");
            CleanReplay later = h.replay();
            if (h.start() == boundary && later.irregularity() == null) {
                ok = c.join(later) && c.end();
            } else if (h.start() != boundary || later.endedAsAPart()) {
                // The halves do not meet, or the second could not judge alone (a snapshot prefix past the
                // middle): this thread reads on to the end by itself.
                for (ReadResult x; (x = reader.next()) != null; ) {
                    if (!(x instanceof RecordView v ? c.accept(v) : c.damage(((DamageSpan) x).offset()))) break;
                }
                ok = c.end();
            } else {
                ok = fail(c, later.irregularity());
            }
        }
        if (second != null && !second.isDone()) {
            stop.set(true);
            Background.join(second, "the second half");
        }
        if (!ok && c.irregularity() == null) c.abandon("not taken");
        return c;
    }

    private static boolean fail(CleanReplay c, String why) {
        c.abandon(why);
        return false;
    }

    private static Half secondHalf(WalFile first, ReaderOptions ro, CleanReplay p, long middle, AtomicBoolean stop) {
        try (WalFile file = WalFile.open(first.path(), ro.maxRecLen())) {
            WalReader reader = new WalReader(file, ro);
            reader.resyncFrom(middle);
            long start = -1;
            for (ReadResult x; (x = reader.next()) != null; ) {
                if (!(x instanceof RecordView v)) {
                    p.damage(((DamageSpan) x).offset());
                    break;
                }
                if (start < 0) {
                    // The transaction across the middle is the first half's: this half starts after it.
                    if (!v.isTxnCont()) start = reader.position();
                    continue;
                }
                if (!p.accept(v)) break;
                if (stop.get()) {
                    p.abandon("the first half is not clean");
                    break;
                }
            }
            if (p.irregularity() != null && !p.endedAsAPart()) stop.set(true);
            return new Half(start < 0 ? file.size() : start, p);
        } catch (IOException e) {
            stop.set(true);
            throw new UncheckedIOException(e);
        }
    }
}
