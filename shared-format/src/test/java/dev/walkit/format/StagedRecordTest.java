package dev.walkit.format;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A staged record reads, through its view, as the canonical encoding of the same record with its value does. */
class StagedRecordTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int n) {
        return new byte[n];
    }

    @Test
    void everyFieldAndOffsetIsTheCanonicalRecords() {
        StagedRecord staged = new StagedRecord();
        List<KeyValue> shapes = List.of(
                KeyValue.put(b("/registry/pods/default/p1"), 5, 9, 3, value(300), 0),
                KeyValue.put(b("/k"), 0, 1L << 40, 0, value(0), 0),
                KeyValue.put(b("/k"), 1, 2, 1, value(1), (1L << 62) + 7).withFlags(Flags.TXN_CONT),
                KeyValue.delete(b("/gone"), 77).withFlags(Flags.DELETE),
                KeyValue.put(new byte[5000], 300, 300, 1, value(70_000), 600).withFlags(Flags.SNAPSHOT));
        long at = 1234;
        for (KeyValue kv : shapes) {
            ByteBuffer encoded = ByteBuffer.wrap(new RecordEncoder().encode(kv)).order(ByteOrder.LITTLE_ENDIAN);
            RecordView want = new RecordView().wrap(encoded, 0, at);
            KeyValue noValue = new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version(), new byte[0], kv.lease());
            RecordView got = staged.stage(noValue, kv.value().length, at);
            String what = kv.toString();
            assertEquals(want.length(), got.length(), what);
            assertEquals(want.flags(), got.flags(), what);
            assertEquals(want.revision(), got.revision(), what);
            assertEquals(want.keyOffset(), got.keyOffset(), what);
            assertEquals(want.modRevOffset(), got.modRevOffset(), what);
            assertEquals(want.recLen(), got.recLen(), what);
            assertArrayEquals(want.key(), got.key(), what);
            assertEquals(want.valueFileOffset(), got.valueFileOffset(), what);
            KvFields w = want.fields();
            KvFields g = got.fields();
            assertEquals(w.keyOffset(), g.keyOffset(), what);
            assertEquals(w.keyLength(), g.keyLength(), what);
            assertEquals(w.createRevision(), g.createRevision(), what);
            assertEquals(w.modRevision(), g.modRevision(), what);
            assertEquals(w.modRevOffset(), g.modRevOffset(), what);
            assertEquals(w.version(), g.version(), what);
            assertEquals(w.lease(), g.lease(), what);
            assertEquals(w.valueLength(), g.valueLength(), what);
            assertEquals(w.valueOffset(), g.valueOffset(), what);
            at += want.length();
        }
    }
}
