package dev.walkit.format.replay;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one writer of a snapshot prefix: the marker and its count, SNAPSHOT flags, keys ascending each once; a caller's slip is thrown. */
class SnapshotPrefixWriterTest {
    static KeyValue put(String key) {
        byte[] k = key.getBytes(StandardCharsets.ISO_8859_1);
        return KeyValue.put(k, 3, 5, 2, k, 0);
    }

    @Test
    void writesTheMarkerThenEachRecordFlaggedSnapshot() throws Exception {
        List<KeyValue> out = new ArrayList<>();
        SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(out::add, 9, 2);
        p.append(put("/a"));
        p.append(put("/b\u00ff")); // bytes above 0x7f sort after ASCII, as etcd orders keys
        p.end();
        RecordEncoder enc = new RecordEncoder();
        assertTrue(java.util.Arrays.equals(enc.encode(RecordEncoder.snapshotMarker(9, 2)), enc.encode(out.get(0))), "the marker at 9, counting 2");
        assertEquals(List.of(Flags.SNAPSHOT, Flags.SNAPSHOT), List.of(out.get(1).flags(), out.get(2).flags()));
        assertEquals(2, p.written());
    }

    @Test
    void aKeyOutOfOrderOrTwiceOrADeleteIsTheCallersBug() throws Exception {
        SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(kv -> { }, 9, 3);
        p.append(put("/b"));
        assertThrows(IllegalArgumentException.class, () -> p.append(put("/a")));
        assertThrows(IllegalArgumentException.class, () -> p.append(put("/b")));
        assertThrows(IllegalArgumentException.class, () -> p.append(KeyValue.delete("/c".getBytes(StandardCharsets.UTF_8), 7)));
    }

    @Test
    void aCountThatDoesNotMatchIsThrownAtTheEnd() throws Exception {
        SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(kv -> { }, 9, 2);
        p.append(put("/a"));
        IllegalStateException e = assertThrows(IllegalStateException.class, p::end);
        assertTrue(e.getMessage().contains("counts 2 records, 1 were written"), e.getMessage());
        SnapshotPrefixWriter spooled = SnapshotPrefixWriter.recordsOnly(kv -> { });
        spooled.append(put("/a"));
        spooled.end(); // its marker is written apart, with written()
        assertEquals(1, spooled.written());
    }
}
