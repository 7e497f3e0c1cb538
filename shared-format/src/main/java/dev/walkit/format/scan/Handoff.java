package dev.walkit.format.scan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A producer on a thread of its own handing items to one consumer through a bounded queue, so that
 * reading runs beside the work on what was read (replay's batch reader). The
 * consumer {@link #take}s until null; the producer's failure is thrown to it there.
 */
public final class Handoff<T> implements AutoCloseable {
    /** What the thread runs: {@link #put} each item; returning ends the items. */
    public interface Producer<T> {
        void run(Handoff<T> out) throws Exception;
    }

    private static final Object END = new Object();

    private final BlockingQueue<Object> queue;
    private final Thread producer;
    private final String what;
    private volatile Throwable failure;

    /** Starts {@code producer} on a daemon thread {@code threadName}; {@code what} names the work in messages. */
    public Handoff(String threadName, int capacity, String what, Producer<T> producer) {
        this.queue = new ArrayBlockingQueue<>(capacity + 1);  // room for the end
        this.what = what;
        this.producer = new Thread(() -> run(producer), threadName);
        this.producer.setDaemon(true);
        this.producer.start();
    }

    private void run(Producer<T> p) {
        try {
            p.run(this);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Throwable t) {
            failure = t;
        }
        try {
            queue.put(END);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Hands on the next item (from the producer); waits while the queue is full. */
    public void put(T item) throws InterruptedException {
        queue.put(item);
    }

    /** The next item, or null after the last; throws what the producer threw. */
    @SuppressWarnings("unchecked")
    public T take() {
        Object x;
        try {
            x = queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        }
        if (x != END) return (T) x;
        queue.add(END); // stays the end for a consumer that asks again
        Throwable t = failure;
        if (t instanceof RuntimeException r) throw r;
        if (t instanceof Error err) throw err;
        if (t instanceof IOException io) throw new UncheckedIOException(io);
        if (t != null) throw new UncheckedIOException(new IOException(t));
        return null;
    }

    /** Stops the producer (if it is still at work) and waits for it. */
    @Override
    public void close() {
        producer.interrupt();
        try {
            producer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
