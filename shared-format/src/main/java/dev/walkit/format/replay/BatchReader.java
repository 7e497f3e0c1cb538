package dev.walkit.format.replay;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Handoff;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads a v2 log on a second thread ({@link Handoff}) into {@link RecordBatch}es, so that reading, CRC, decode
 * and the keys' hashes run beside replay, as {@link dev.walkit.format.Prefetch} does for {@link WalEntry}s
 * but with no object made for a plain record. The batches go round: {@link #take} one, {@link #recycle} it
 * when done. The reader owns its {@link WalFile}: nothing but the batches passes between the threads,
 * through the queues.
 */
final class BatchReader implements Closeable {
    private static final int IN_FLIGHT = 8;

    private final WalReader reader;
    private final BlockingQueue<RecordBatch> free = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final Handoff<RecordBatch> full;
    /** Valid records read; read by the caller after {@link #take} returned null. */
    private long records;

    BatchReader(WalFile file, ReaderOptions options) {
        this.reader = new WalReader(file, options.withLevel(ReaderOptions.Level.DECODE));
        for (int i = 0; i < IN_FLIGHT; i++) free.add(new RecordBatch());
        this.full = new Handoff<>("walkit-reader", IN_FLIGHT, "reading " + file.path(), this::produce);
    }

    private void produce(Handoff<RecordBatch> out) throws InterruptedException {
        RecordBatch b = free.take();
        long n = 0;
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (x instanceof RecordView v) {
                n++;
                if (RecordBatch.plain(v)) b.addPlain(v);
                else b.add(WalEntry.of(v));
            } else {
                b.add((DamageSpan) x);
            }
            if (b.full()) {
                out.put(b);
                b = free.take();
            }
        }
        records = n;
        if (b.size > 0) out.put(b);
    }

    /** The next batch, or null after the last. */
    RecordBatch take() {
        return full.take();
    }

    /** Hands a batch taken back to be filled again. */
    void recycle(RecordBatch b) {
        b.clear();
        free.add(b);
    }

    /** Valid records read, once {@link #take} has returned null. */
    long records() {
        return records;
    }

    @Override
    public void close() throws IOException {
        full.close();
        reader.close();
    }
}
