package dev.walkit.format;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads an {@link EntrySource} on a second thread, a batch of items at a time, so that reading,
 * CRC and decode run beside replay (both cores). The source must own its {@link WalFile}: the items
 * (copies) are handed over, never the reader's window, so nothing is shared between the threads.
 */
public final class Prefetch implements EntrySource {
    private static final int BATCH = 1024;
    private static final Object[] END = new Object[0];

    private final EntrySource source;
    private final BlockingQueue<Object[]> queue = new ArrayBlockingQueue<>(8);
    private final Thread producer;
    private volatile Throwable failure;
    private Object[] batch;
    private int i;

    public Prefetch(EntrySource source) {
        this.source = source;
        this.producer = new Thread(this::produce, "walkit-reader");
        producer.setDaemon(true);
        producer.start();
    }

    private void produce() {
        try {
            Object[] b = new Object[BATCH];
            int n = 0;
            for (LogItem it; (it = source.next()) != null; ) {
                b[n++] = it;
                if (n == BATCH) {
                    queue.put(b);
                    b = new Object[BATCH];
                    n = 0;
                }
            }
            if (n > 0) queue.put(java.util.Arrays.copyOf(b, n));
            queue.put(END);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure = t;
            try {
                queue.put(END);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public LogItem next() {
        if (batch == END) return null;
        if (batch == null || i == batch.length) {
            try {
                batch = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading " + source.file().path(), e);
            }
            i = 0;
            if (batch == END) {
                Throwable t = failure;
                if (t instanceof RuntimeException r) throw r;
                if (t instanceof Error err) throw err;
                if (t != null) throw new UncheckedIOException(new IOException(t));
                return null;
            }
        }
        return (LogItem) batch[i++];
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
        producer.interrupt();
        try {
            producer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        source.close();
    }
}
