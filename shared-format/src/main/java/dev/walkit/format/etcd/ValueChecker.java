package dev.walkit.format.etcd;

import dev.walkit.format.KeyQuote;
import dev.walkit.format.ValueCheck;
import dev.walkit.format.bbolt.BoltDamage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * etcd's values checked ({@link ValueCheck}) on a thread of their own while the db's pages are walked on the caller's
 * (the walk is one thread: the second core was idle), in batches of copied values; when that thread falls behind,
 * the caller checks the batch itself (no more than a few batches are ever held). The damage comes out in revision
 * order, as the walk met the values.
 */
final class ValueChecker implements AutoCloseable {
    /** Values copied into a batch before it is handed on. */
    private static final int BATCH_BYTES = 4 << 20;

    private record Item(long page, long offset, long main, long sub, byte[] key, byte[] value) {
    }

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(2), r -> {
        Thread t = new Thread(r, "walkit-values");
        t.setDaemon(true);
        return t;
    }, new ThreadPoolExecutor.CallerRunsPolicy());
    private final List<Future<List<BoltDamage>>> done = new ArrayList<>();
    private List<Item> batch = new ArrayList<>();
    private long bytes;

    /** The value of revision {@code main.sub} of {@code key}, on the page {@code page} at {@code offset}. */
    void check(long page, long offset, long main, long sub, byte[] key, byte[] value) {
        batch.add(new Item(page, offset, main, sub, key, value));
        bytes += value.length + key.length;
        if (bytes >= BATCH_BYTES) flush();
    }

    private void flush() {
        if (batch.isEmpty()) return;
        List<Item> b = batch;
        batch = new ArrayList<>();
        bytes = 0;
        done.add(pool.submit(() -> {
            List<BoltDamage> out = new ArrayList<>();
            for (Item i : b) {
                String why = ValueCheck.check(i.key(), i.value());
                if (why != null) out.add(new BoltDamage(i.page(), i.offset(), "revision " + i.main() + "." + i.sub() + " (key " + KeyQuote.quote(i.key()) + "): " + why));
            }
            return out;
        }));
    }

    /** Every value's damage, in the order the values came. */
    List<BoltDamage> damage() {
        flush();
        List<BoltDamage> out = new ArrayList<>();
        try {
            for (Future<List<BoltDamage>> f : done) out.addAll(f.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking values", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return out;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
