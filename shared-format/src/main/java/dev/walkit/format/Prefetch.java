package dev.walkit.format;

import java.io.IOException;

/**
 * Reads an {@link EntrySource} on a second thread ({@link Handoff}), a batch of items at a time, so that
 * reading, CRC and decode run beside replay (both cores). The source must own its {@link WalFile}: the
 * items (copies) are handed over, never the reader's window, so nothing is shared between the threads.
 */
public final class Prefetch implements EntrySource {
    private static final int BATCH = 1024;

    private final EntrySource source;
    private final Handoff<LogItem[]> batches;
    private LogItem[] batch;
    private int i;

    public Prefetch(EntrySource source) {
        this.source = source;
        this.batches = new Handoff<>("walkit-reader", 8, "reading " + source.file().path(), out -> {
            LogItem[] b = new LogItem[BATCH];
            int n = 0;
            for (LogItem it; (it = source.next()) != null; ) {
                b[n++] = it;
                if (n == BATCH) {
                    out.put(b);
                    b = new LogItem[BATCH];
                    n = 0;
                }
            }
            if (n > 0) out.put(java.util.Arrays.copyOf(b, n));
        });
    }

    @Override
    public LogItem next() {
        if (batch == null || i == batch.length) {
            batch = batches.take();
            i = 0;
            if (batch == null) return null;
        }
        return batch[i++];
    }

    @Override
    public WalFormat format() {
        return source.format();
    }

    @Override
    public WalFile file() {
        return source.file();
    }

    @Override
    public void close() throws IOException {
        batches.close();
        source.close();
    }
}
