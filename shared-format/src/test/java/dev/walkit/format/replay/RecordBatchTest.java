package dev.walkit.format.replay;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalEntry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A batch's plain records: made into the WalEntry a reader makes, and grouped into whole transactions only. */
class RecordBatchTest {
    private static final LogBuilder LOG = new LogBuilder()
            .add(KeyValue.put("/a".getBytes(StandardCharsets.UTF_8), 5, 5, 1, new byte[] {1}, 7).withFlags(Flags.TXN_CONT))
            .add(KeyValue.put("/b".getBytes(StandardCharsets.UTF_8), 5, 5, 1, new byte[] {2}, 0).withFlags(Flags.TXN_CONT))
            .add(KeyValue.delete("/c".getBytes(StandardCharsets.UTF_8), 5))
            .add(KeyValue.put("/d".getBytes(StandardCharsets.UTF_8), 6, 6, 1, new byte[] {3}, 0));

    private static RecordView view(int record) {
        ByteBuffer buf = LogBuilder.le(LOG.bytes());
        int at = (int) LOG.offset(record);
        return new RecordView().wrap(buf, at, at);
    }

    @Test
    void aPlainRecordIsMadeTheEntryAReaderMakes() {
        RecordBatch b = new RecordBatch();
        for (int i = 0; i < LOG.count(); i++) b.addPlain(view(i));
        for (int i = 0; i < LOG.count(); i++) {
            WalEntry want = WalEntry.of(view(i));
            WalEntry got = (WalEntry) b.item(i);
            assertArrayEquals(want.key(), got.key());
            assertEquals(want, new WalEntry(got.offset(), got.length(), got.flags(), got.revision(), want.key(), got.createRevision(),
                    got.version(), got.lease(), got.valueOffset(), got.valueLength(), got.crcRange()), "record " + i);
            assertEquals(KeyTable.hash(want.key()), b.keyHash[i], "the key's hash, as KeyIndex computes it");
        }
    }

    @Test
    void aTransactionEndsAtItsClosingRecordWithinTheBatch() {
        RecordBatch b = new RecordBatch();
        for (int i = 0; i < LOG.count(); i++) b.addPlain(view(i));
        assertEquals(3, b.transactionEnd(0));
        assertEquals(3, b.transactionEnd(1));
        assertEquals(4, b.transactionEnd(3));
        b.clear();
        b.addPlain(view(0));
        b.addPlain(view(1));
        assertEquals(-1, b.transactionEnd(0), "the closing record is not in the batch");
    }

    @Test
    void anItemInsideATransactionEndsIt() {
        RecordBatch b = new RecordBatch();
        for (int i = 0; i < LOG.count(); i++) b.addPlain(view(i));
        b.clear();
        // Reused: the arrays still hold the records above; the entry at index 1 has the same revision.
        b.addPlain(view(0));
        WalEntry kept = WalEntry.of(view(1));
        b.add(kept);
        b.addPlain(view(2));
        assertEquals(-1, b.transactionEnd(0));
        assertEquals(3, b.transactionEnd(2));
        assertSame(kept, b.item(1), "an item is handed on as it is");
    }

    @Test
    void theNextRevisionEndsATransactionUnclosed() {
        RecordBatch b = new RecordBatch();
        b.addPlain(view(0));
        b.addPlain(view(3));
        assertEquals(-1, b.transactionEnd(0), "grouping drops revision 5 as incomplete");
        assertEquals(2, b.transactionEnd(1));
    }
}
