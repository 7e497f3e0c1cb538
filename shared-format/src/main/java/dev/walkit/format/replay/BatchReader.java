package dev.walkit.format.replay;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.EntrySource;
import dev.walkit.format.scan.Handoff;
import dev.walkit.format.LogItem;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.V1Reader;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.WalReader;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The one producer of records for replay: reads a log on a second thread ({@link Handoff}) into
 * {@link RecordBatch}es, so that reading, CRC, decode and the keys' hashes run beside replay, with no
 * object made for a plain v2 record ({@link WalEntry}s are made from the batch on demand). A v1 log's
 * records, which replay must derive fields for, come as {@link WalEntry}s. The batches go round:
 * {@link #take} one, {@link #recycle} it when done. The reader owns its {@link WalFile}: nothing but the
 * batches passes between the threads, through the queues.
 */
final class BatchReader implements Closeable {
    private static final int IN_FLIGHT = 8;

    private final WalReader reader;
    private final EntrySource v1;
    private final BlockingQueue<RecordBatch> free = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final Handoff<RecordBatch> full;
    /** Valid records read; read by the caller after {@link #take} returned null. */
    private long records;

    BatchReader(WalFile file, WalFormat format, ReaderOptions options) {
        this(file, format, options, 0);
    }

    /** Reads from {@code from}, where a v2 record starts (a resumed replay's start; a v1 log reads from its start). */
    BatchReader(WalFile file, WalFormat format, ReaderOptions options, long from) {
        this.reader = format == WalFormat.V2 ? new WalReader(file, options.withLevel(ReaderOptions.Level.DECODE)) : null;
        if (reader != null && from > 0) reader.seek(from);
        this.v1 = format == WalFormat.V1 ? new V1Reader(file, options.maxRecLen(), false) : null;
        for (int i = 0; i < IN_FLIGHT; i++) free.add(new RecordBatch());
        this.full = new Handoff<>("walkit-reader", IN_FLIGHT, "reading " + file.path(), reader != null ? this::produce : this::produceV1);
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

    private void produceV1(Handoff<RecordBatch> out) throws InterruptedException {
        RecordBatch b = free.take();
        long n = 0;
        for (LogItem it; (it = v1.next()) != null; ) {
            if (it instanceof WalEntry) n++;
            b.add(it);
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
        if (reader != null) reader.close();
        if (v1 != null) v1.close();
    }
}
