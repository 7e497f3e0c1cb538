package dev.walkit.format.replay;

import dev.walkit.format.LogItem;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.group.TransactionGrouper;
import dev.walkit.format.Wal;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One pass over a WAL file: read ({@link BatchReader}, the one producer of records), group into transactions,
 * replay. A whole transaction of plain v2 records that replay applies as it is goes from the batch to the state
 * with no object made for it ({@link Replayer#applyPlain}); everything else is grouped and replayed as
 * {@link WalEntry}s made from the batch. The state and findings are the same either way.
 */
public final class Replay {
    private Replay() {
    }

    /**
     * What a pass gives: the format read, the valid records read ({@code records}, applied or not), and the
     * replayed state with every damage and finding.
     */
    public record Result(Path path, WalFormat format, long fileSize, long records, Replayer state) {
    }

    /** Replays {@code file} (format sniffed) with {@code options}, telling {@code listener} (or null). */
    public static Result run(WalFile file, ReaderOptions readerOptions, Replayer.Options options, Replayer.Listener listener)
            throws IOException {
        return run(file, Wal.sniff(file, readerOptions.maxRecLen()).format(), readerOptions, options, listener, new KeyIndex());
    }

    /** Replays {@code file}, already sniffed as {@code format}. */
    public static Result run(WalFile file, WalFormat format, ReaderOptions readerOptions, Replayer.Options options,
                             Replayer.Listener listener) throws IOException {
        return run(file, format, readerOptions, options, listener, new KeyIndex());
    }

    /** Replays {@code file}, already sniffed as {@code format}, into {@code keys} (empty). */
    public static Result run(WalFile file, WalFormat format, ReaderOptions readerOptions, Replayer.Options options,
                             Replayer.Listener listener, KeyIndex keys) throws IOException {
        return run(file, format, readerOptions, options, listener, keys, null, 0);
    }

    /**
     * Goes on with a replay of a v2 {@code file} that stopped at {@code from} (a transaction's end) with {@code checkpoint},
     * its keys restored into {@code keys}: reads only the bytes from {@code from} on, as the replay of the whole file
     * would have read them after {@code from}.
     */
    public static Result resume(WalFile file, ReaderOptions readerOptions, Replayer.Listener listener, KeyIndex keys,
                                Replayer.Checkpoint checkpoint, long from) throws IOException {
        return run(file, WalFormat.V2, readerOptions, Replayer.Options.defaults(), listener, keys, checkpoint, from);
    }

    private static Result run(WalFile file, WalFormat format, ReaderOptions readerOptions, Replayer.Options options,
                              Replayer.Listener listener, KeyIndex keys, Replayer.Checkpoint checkpoint, long from) throws IOException {
        Replayer.Options o = format == WalFormat.V1
                ? new Replayer.Options(true, options.toRevision(), options.stopAtFirstDamage()) : options;
        Replayer.Listener l = listener == null ? new Replayer.Listener() { } : listener;
        Replayer replayer = new Replayer(o, file::read, l, keys);
        if (checkpoint != null) replayer.resume(checkpoint);
        // The reader runs on its own thread over its own handle of the file; replay, the listener
        // and their random reads (values, records copied out) use {@code file} on this thread.
        long records;
        try (WalFile own = opened(file, readerOptions);
             BatchReader src = new BatchReader(own, format, readerOptions, from)) {
            TransactionGrouper g = new TransactionGrouper(replayer);
            for (RecordBatch b; (b = src.take()) != null; ) {
                for (int i = 0, n = b.size; i < n; ) {
                    if (b.items[i] == null && g.idle()) {
                        int end = b.transactionEnd(i);
                        if (end > 0) {
                            for (int j = i; j < end; j++) l.read(b.offset[j], b.revision[j]);
                            if (replayer.applyPlain(b, i, end)) {
                                i = end;
                                continue;
                            }
                            for (; i < end; i++) g.accept(b.item(i));
                            continue;
                        }
                    }
                    LogItem it = b.item(i++);
                    if (it instanceof WalEntry e) l.read(e.offset(), e.revision());
                    g.accept(it);
                }
                src.recycle(b);
            }
            g.end();
            records = src.records();
        }
        replayer.end(file.size());
        return new Result(file.path(), format, file.size(), records, replayer);
    }

    /** Opens {@code path} (a WAL file or data directory) and replays it with the defaults. */
    public static Result run(Path path) throws IOException {
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(Wal.resolve(path), ro.maxRecLen())) {
            return run(f, ro, Replayer.Options.defaults(), null);
        }
    }

    /** The reader's own handle of {@code file}, its reads counted where {@code file}'s are (a progress bar). */
    private static WalFile opened(WalFile file, ReaderOptions ro) throws java.io.IOException {
        WalFile own = WalFile.open(file.path(), ro.maxRecLen());
        own.onFill(file.onFill());
        return own;
    }
}
