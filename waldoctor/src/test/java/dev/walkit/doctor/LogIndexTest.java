package dev.walkit.doctor;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The per-key history chains and the byte-ordered key table behind get, range, history and diff. */
class LogIndexTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Revision r: one record per transaction, in the order given. */
    private LogIndex load(KeyValue... kvs) throws Exception {
        RecordEncoder enc = new RecordEncoder();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        for (KeyValue kv : kvs) log.write(enc.encode(kv));
        Path wal = dir.resolve("wal");
        Files.write(wal, log.toByteArray());
        return LogIndex.load(wal, null);
    }

    @Test
    void keysAreInEtcdsByteOrderNotJavasStringOrder() throws Exception {
        // U+E000 is EE 80 80 in UTF-8; U+10000 is F0 90 80 80, a surrogate pair (D800 DC00) in a Java string:
        // a String sorts it first, etcd (bytes) last.
        String bmp = "/k/\uE000";
        String astral = "/k/\uD800\uDC00";
        try (LogIndex x = load(KeyValue.put(b(astral), 1, 1, 1, b("a"), 0), KeyValue.put(b(bmp), 2, 2, 1, b("b"), 0),
                KeyValue.put(b("/k/a"), 3, 3, 1, b("c"), 0), KeyValue.put(b("/l"), 4, 4, 1, b("d"), 0))) {
            // Keys as text are quoted one way (KeyText): printable UTF-8 as it is (U+10000, a letter), other bytes as \xNN
            // (U+E000 is for private use: not printable).
            String q1 = dev.walkit.cli.KeyText.quote(b(bmp));
            String q2 = dev.walkit.cli.KeyText.quote(b(astral));
            assertEquals(List.of("/k/a", "/k/\\xee\\x80\\x80", "/k/\uD800\uDC00"), x.liveKeys("/k/", Long.MAX_VALUE, 0));
            assertEquals(List.of("/k/a", q1, q2, "/l"), x.keys(""));
            assertEquals("b", new String(x.get(bmp, Long.MAX_VALUE).value(), StandardCharsets.UTF_8), "typed as text, found");
        }
    }

    @Test
    void aPrefixRangeEndsAtTheFirstKeyPastItsLastByte() throws Exception {
        // "/k/" ends where "/k0" begins ('0' is '/' + 1): the bound past the prefix is not itself in range.
        try (LogIndex x = load(KeyValue.put(b("/k"), 1, 1, 1, b("a"), 0), KeyValue.put(b("/k/"), 2, 2, 1, b("b"), 0),
                KeyValue.put(b("/k/z"), 3, 3, 1, b("c"), 0), KeyValue.put(b("/k0"), 4, 4, 1, b("d"), 0))) {
            assertEquals(List.of("/k/", "/k/z"), x.liveKeys("/k/", Long.MAX_VALUE, 0));
            assertEquals(List.of("/k", "/k/", "/k/z", "/k0"), x.liveKeys("/k", Long.MAX_VALUE, 0));
            assertEquals(List.of(), x.liveKeys("/k/zz", Long.MAX_VALUE, 0));
            assertEquals(List.of("/k/", "/k/z"), x.liveKeys("/k/", Long.MAX_VALUE, 1), "limit 1: one more than asked, to tell more follow");
        }
    }

    @Test
    void aKeysHistoryIsItsChainOldestFirstAndHoldsAtEachRevision() throws Exception {
        try (LogIndex x = load(KeyValue.put(b("/a"), 1, 1, 1, b("v1"), 0), KeyValue.put(b("/b"), 2, 2, 1, b("w"), 0),
                KeyValue.put(b("/a"), 1, 3, 2, b("v2"), 0), KeyValue.delete(b("/a"), 4), KeyValue.put(b("/a"), 5, 5, 1, b("v3"), 0))) {
            List<KeyValue> events = x.events("/a");
            assertEquals(List.of(1L, 3L, 4L, 5L), events.stream().map(KeyValue::modRevision).toList());
            assertEquals("v2", new String(x.get("/a", 3).value(), StandardCharsets.UTF_8));
            assertNull(x.get("/a", 4), "deleted at 4");
            assertEquals("v3", new String(x.get("/a", Long.MAX_VALUE).value(), StandardCharsets.UTF_8));
            assertNull(x.get("/a", 0), "not yet written");
            assertEquals(List.of("/b"), x.liveKeys("/", 4, 0));
            assertEquals(2, x.liveCount("/", 3));
            LogIndex.HistoryState a = x.state("/a");
            assertEquals(4, a.count);
            assertEquals(3, x.applied().revision(x.appliedAt(a, 3)));
            assertEquals(-1, x.appliedAt(a, 0));
        }
    }
}
