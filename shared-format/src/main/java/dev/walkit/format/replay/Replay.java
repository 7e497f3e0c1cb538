package dev.walkit.format.replay;

import dev.walkit.format.EntrySource;
import dev.walkit.format.LogItem;
import dev.walkit.format.Prefetch;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.TransactionGrouper;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** One pass over a WAL file: read, group into transactions, replay. */
public final class Replay {
    private Replay() {
    }

    /** What a pass gives: the format read and the replayed state with every damage and finding. */
    public record Result(Path path, WalFormat format, long fileSize, Replayer state) {
    }

    /** Replays {@code file} (format sniffed) with {@code options}; {@code tap} sees every item read, or is null. */
    public static Result run(WalFile file, ReaderOptions readerOptions, Replayer.Options options, Replayer.Listener listener,
                             Consumer<LogItem> tap) throws IOException {
        WalFormat format = Wal.sniff(file, readerOptions.maxRecLen()).format();
        Replayer.Options o = format == WalFormat.V1
                ? new Replayer.Options(true, options.toRevision(), options.stopAtFirstDamage()) : options;
        Replayer replayer = new Replayer(o, file::read, listener);
        // The reader runs on its own thread over its own handle of the file; replay, the listeners
        // and their random reads (values, records copied out) use {@code file} on this thread.
        WalFile own = WalFile.open(file.path(), readerOptions.maxRecLen());
        try (EntrySource src = new Prefetch(Wal.entries(own, format, readerOptions))) {
            TransactionGrouper.run(src, replayer, tap);
        } finally {
            own.close();
        }
        replayer.end(file.size());
        return new Result(file.path(), format, file.size(), replayer);
    }

    /** Opens {@code path} (a WAL file or data directory) and replays it with the defaults. */
    public static Result run(Path path) throws IOException {
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(Wal.resolve(path), ro.maxRecLen())) {
            return run(f, ro, Replayer.Options.defaults(), null, null);
        }
    }
}
