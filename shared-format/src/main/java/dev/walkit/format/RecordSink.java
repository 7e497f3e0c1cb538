package dev.walkit.format;

import java.io.IOException;

/** Where a store's WAL form goes, record by record in log order: a file ({@link WalWriter}) or replay itself. */
@FunctionalInterface
public interface RecordSink {
    void append(KeyValue record) throws IOException;
}
