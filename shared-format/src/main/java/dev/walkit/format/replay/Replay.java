package dev.walkit.format.replay;

import dev.walkit.format.EntrySource;
import dev.walkit.format.LogItem;
import dev.walkit.format.Prefetch;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.TransactionGrouper;
import dev.walkit.format.Wal;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** One pass over a WAL file: read, group into transactions, replay. */
public final class Replay {
    private Replay() {
    }

    /**
     * What a pass gives: the format read, the valid records read ({@code records}, applied or not), and the
     * replayed state with every damage and finding.
     */
    public record Result(Path path, WalFormat format, long fileSize, long records, Replayer state) {
    }

    /**
     * Replays {@code file} (format sniffed) with {@code options}; {@code tap} sees every item read, or is null.
     * A v2 log is read in {@link RecordBatch}es when there is no tap and the listener, if any,
     * {@linkplain Replayer.Listener#takesPlain takes} transactions of plain records applied as they are: no object
     * is then made for a record of a transaction that breaks no rule. The state and findings are the same.
     */
    public static Result run(WalFile file, ReaderOptions readerOptions, Replayer.Options options, Replayer.Listener listener,
                             Consumer<LogItem> tap) throws IOException {
        return run(file, Wal.sniff(file, readerOptions.maxRecLen()).format(), readerOptions, options, listener, tap);
    }

    /** As {@link #run(WalFile, ReaderOptions, Replayer.Options, Replayer.Listener, Consumer)}, for a file already sniffed as {@code format}. */
    public static Result run(WalFile file, WalFormat format, ReaderOptions readerOptions, Replayer.Options options,
                             Replayer.Listener listener, Consumer<LogItem> tap) throws IOException {
        Replayer.Options o = format == WalFormat.V1
                ? new Replayer.Options(true, options.toRevision(), options.stopAtFirstDamage()) : options;
        Replayer replayer = new Replayer(o, file::read, listener);
        boolean batches = format == WalFormat.V2 && tap == null && (listener == null || listener.takesPlain());
        // The reader runs on its own thread over its own handle of the file; replay, the listeners
        // and their random reads (values, records copied out) use {@code file} on this thread.
        long records;
        try (WalFile own = WalFile.open(file.path(), readerOptions.maxRecLen())) {
            records = batches ? inBatches(own, readerOptions, replayer) : inEntries(own, format, readerOptions, replayer, tap);
        }
        replayer.end(file.size());
        return new Result(file.path(), format, file.size(), records, replayer);
    }

    private static long inEntries(WalFile own, WalFormat format, ReaderOptions readerOptions, Replayer replayer,
                                  Consumer<LogItem> tap) throws IOException {
        long[] records = new long[1];
        try (EntrySource src = new Prefetch(Wal.entries(own, format, readerOptions))) {
            TransactionGrouper.run(src, replayer, it -> {
                if (it instanceof WalEntry) records[0]++;
                if (tap != null) tap.accept(it);
            });
        }
        return records[0];
    }

    private static long inBatches(WalFile own, ReaderOptions readerOptions, Replayer replayer) throws IOException {
        TransactionGrouper g = new TransactionGrouper(replayer);
        try (BatchReader src = new BatchReader(own, readerOptions)) {
            for (RecordBatch b; (b = src.take()) != null; ) {
                for (int i = 0, n = b.size; i < n; ) {
                    if (b.items[i] == null && g.idle()) {
                        int end = b.transactionEnd(i);
                        if (end > 0 && replayer.applyPlain(b, i, end)) {
                            i = end;
                            continue;
                        }
                    }
                    g.accept(b.item(i++));
                }
                src.recycle(b);
            }
            g.end();
            return src.records();
        }
    }

    /** Opens {@code path} (a WAL file or data directory) and replays it with the defaults. */
    public static Result run(Path path) throws IOException {
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(Wal.resolve(path), ro.maxRecLen())) {
            return run(f, ro, Replayer.Options.defaults(), null, null);
        }
    }
}
