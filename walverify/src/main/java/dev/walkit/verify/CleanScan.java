package dev.walkit.verify;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.CleanReplay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The semantic level's fast path, for a v2 log with nothing to report ({@link CleanReplay}): on both
 * cores for a large file. A second thread, over its own handle, reads the second half from the first
 * transaction that starts past the middle, keeping each key's first record there; this thread reads
 * up to that boundary; the halves are then joined as one replay would see them. At the first thing a
 * finding would be made of, on either side, both stop and the caller replays the whole log with
 * {@link dev.walkit.format.replay.Replayer}, which makes the findings: the report is the same either way.
 */
final class CleanScan {
    /** What a clean log tells the report. */
    record Result(long records, long firstRevision, long lastRevision, long maxRevision, long transactions,
                  long compactRevision, long liveKeys, long tombstones) {
    }

    /** The second half: the offset it starts at (the end of the file if none) and its replay. */
    private record Half(long start, CleanReplay replay) {
    }

    private CleanScan() {
    }

    /** The clean log's facts, or null when the fast path ended ({@code why} then says why, for tests). */
    static Result scan(WalFile file, ReaderOptions ro, long minSplit, StringBuilder why) throws IOException {
        boolean split = file.size() >= minSplit && Runtime.getRuntime().availableProcessors() >= 2;
        long middle = split ? file.size() / 2 : Long.MAX_VALUE;
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Half> second = !split ? null : CompletableFuture.supplyAsync(() -> secondHalf(file, ro, middle, stop), runnable -> {
            Thread t = new Thread(runnable, "walverify-clean-second-half");
            t.setDaemon(true);
            t.start();
        });
        CleanReplay c = CleanReplay.whole();
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
            Half h = join(second);
            ok = h.start() == boundary ? c.join(h.replay()) && c.end() : fail(c, "the halves do not meet at " + boundary);
        }
        if (second != null && !second.isDone()) {
            stop.set(true);
            join(second);
        }
        if (!ok) {
            why.append(c.irregularity());
            return null;
        }
        return new Result(c.records(), c.firstRecordRevision(), c.lastRecordRevision(), c.maxRecordRevision(), c.transactions(),
                c.compactRevision(), c.liveCount(), c.tombstoneCount());
    }

    private static boolean fail(CleanReplay c, String why) {
        c.abandon(why);
        return false;
    }

    private static Half join(CompletableFuture<Half> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UncheckedIOException u) throw u.getCause();
            throw new IllegalStateException(e.getCause());
        }
    }

    private static Half secondHalf(WalFile first, ReaderOptions ro, long middle, AtomicBoolean stop) {
        try (WalFile file = WalFile.open(first.path(), ro.maxRecLen())) {
            WalReader reader = new WalReader(file, ro);
            reader.resyncFrom(middle);
            CleanReplay p = CleanReplay.part();
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
            if (p.irregularity() != null) stop.set(true);
            return new Half(start < 0 ? file.size() : start, p);
        } catch (IOException e) {
            stop.set(true);
            throw new UncheckedIOException(e);
        }
    }
}
