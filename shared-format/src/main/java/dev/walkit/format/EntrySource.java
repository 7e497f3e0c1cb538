package dev.walkit.format;

import java.io.Closeable;

/** A stream of {@link LogItem}s over one WAL file, in either format; null at the end. */
public interface EntrySource extends Closeable {
    LogItem next();

    WalFormat format();

    WalFile file();
}
