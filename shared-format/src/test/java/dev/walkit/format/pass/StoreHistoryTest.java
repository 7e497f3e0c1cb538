package dev.walkit.format.pass;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pass's read-only history keyed by bytes: the per-key chains and the byte-ordered key table behind get, range, history and diff. */
class StoreHistoryTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Revision r: one record per transaction, in the order given. */
    private StoreHistory load(KeyValue... kvs) throws Exception {
        RecordEncoder enc = new RecordEncoder();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        for (KeyValue kv : kvs) log.write(enc.encode(kv));
        Path wal = dir.resolve("wal");
        Files.write(wal, log.toByteArray());
        return Pass.history(wal, null);
    }

    /** The keys of the prefix range live at {@code rev}, every one (values read). */
    private static List<String> live(StoreHistory x, String prefix, long rev) {
        List<String> out = new ArrayList<>();
        x.range(b(prefix), StoreHistory.prefixEnd(b(prefix)), rev, Long.MAX_VALUE, true, kv -> out.add(s(kv.key())));
        return out;
    }

    @Test
    void keysAreInEtcdsByteOrderNotJavasStringOrder() throws Exception {
        // U+E000 is EE 80 80 in UTF-8; U+10000 is F0 90 80 80, a surrogate pair (D800 DC00) in a Java string:
        // a String sorts it first, etcd (bytes) last.
        String bmp = "/k/\uE000";
        String astral = "/k/\uD800\uDC00";
        try (StoreHistory x = load(KeyValue.put(b(astral), 1, 1, 1, b("a"), 0), KeyValue.put(b(bmp), 2, 2, 1, b("b"), 0),
                KeyValue.put(b("/k/a"), 3, 3, 1, b("c"), 0), KeyValue.put(b("/l"), 4, 4, 1, b("d"), 0))) {
            assertEquals(List.of("/k/a", bmp, astral), live(x, "/k/", Long.MAX_VALUE));
            assertEquals(List.of("/k/a", bmp, astral, "/l"), x.keys(new byte[0]).stream().map(StoreHistoryTest::s).toList());
            assertEquals("b", s(x.get(b(bmp), Long.MAX_VALUE).value()));
        }
    }

    @Test
    void aPrefixRangeEndsAtTheFirstKeyPastItsLastByte() throws Exception {
        // "/k/" ends where "/k0" begins ('0' is '/' + 1): the bound past the prefix is not itself in range.
        try (StoreHistory x = load(KeyValue.put(b("/k"), 1, 1, 1, b("a"), 0), KeyValue.put(b("/k/"), 2, 2, 1, b("b"), 0),
                KeyValue.put(b("/k/z"), 3, 3, 1, b("c"), 0), KeyValue.put(b("/k0"), 4, 4, 1, b("d"), 0))) {
            assertEquals(List.of("/k/", "/k/z"), live(x, "/k/", Long.MAX_VALUE));
            assertEquals(List.of("/k", "/k/", "/k/z", "/k0"), live(x, "/k", Long.MAX_VALUE));
            assertEquals(List.of(), live(x, "/k/zz", Long.MAX_VALUE));
            assertArrayEquals(b("/k0"), StoreHistory.prefixEnd(b("/k/")));
            assertArrayEquals(new byte[0], StoreHistory.prefixEnd(new byte[] {(byte) 0xff, (byte) 0xff}), "no end: every key on");
            List<String> first = new ArrayList<>();
            long all = x.range(b("/k"), new byte[0], Long.MAX_VALUE, 1, true, kv -> first.add(s(kv.key())));
            assertEquals(List.of("/k"), first, "one handed");
            assertEquals(4, all, "the count goes on past the keys handed");
            assertEquals(1, x.range(b("/k/z"), null, Long.MAX_VALUE, 0, false, kv -> true), "null end: the key alone");
        }
    }

    @Test
    void aKeysOnlyRangeReadsNoValue() throws Exception {
        try (StoreHistory x = load(KeyValue.put(b("/a"), 1, 1, 1, b("a value"), 7), KeyValue.put(b("/b"), 2, 2, 1, b("b value"), 0))) {
            List<KeyValue> kvs = new ArrayList<>();
            x.range(b("/"), StoreHistory.prefixEnd(b("/")), Long.MAX_VALUE, Long.MAX_VALUE, false, kvs::add);
            assertEquals(2, kvs.size());
            assertEquals(0, kvs.get(0).value().length, "no value copied");
            assertEquals(7, kvs.get(0).lease(), "the other fields read");
            assertEquals(1, kvs.get(0).modRevision());
        }
    }

    @Test
    void aKeysHistoryIsItsChainOldestFirstAndHoldsAtEachRevision() throws Exception {
        try (StoreHistory x = load(KeyValue.put(b("/a"), 1, 1, 1, b("v1"), 0), KeyValue.put(b("/b"), 2, 2, 1, b("w"), 0),
                KeyValue.put(b("/a"), 1, 3, 2, b("v2"), 0), KeyValue.delete(b("/a"), 4), KeyValue.put(b("/a"), 5, 5, 1, b("v3"), 0))) {
            List<KeyValue> events = x.events(b("/a"));
            assertEquals(List.of(1L, 3L, 4L, 5L), events.stream().map(KeyValue::modRevision).toList());
            assertEquals("v2", s(x.get(b("/a"), 3).value()));
            assertNull(x.get(b("/a"), 4), "deleted at 4");
            assertEquals("v3", s(x.get(b("/a"), Long.MAX_VALUE).value()));
            assertNull(x.get(b("/a"), 0), "not yet written");
            assertTrue(x.ever(b("/a")));
            assertFalse(x.ever(b("/c")));
            assertNull(x.events(b("/c")));
            assertEquals(List.of("/b"), live(x, "/", 4));
            assertEquals(2, x.range(b("/"), StoreHistory.prefixEnd(b("/")), 3, 0, false, null), "count only");
            HistoryKeys.Entry a = x.state(b("/a"));
            assertEquals(4, a.count());
            assertEquals(-1, x.appliedAt(a, 0));
            // Every change between two revisions, named with the revisions on each side.
            List<String> changes = new ArrayList<>();
            x.changes(2, 4, (key, kind, before, after) -> changes.add(s(key) + " " + kind + " " + before + " " + after));
            assertEquals(List.of("/a DELETED 1 4"), changes);
            changes.clear();
            x.changes(1, 5, (key, kind, before, after) -> changes.add(s(key) + " " + kind + " " + before + " " + after));
            assertEquals(List.of("/a CHANGED 1 5", "/b CREATED -1 2"), changes);
            // The events in revision order, each with the key's state before it.
            List<String> seen = new ArrayList<>();
            long next = x.events(2, 4, new byte[] {0}, new byte[0], 0, (kv, prev) -> seen.add(kv.modRevision() + ":" + (prev == null ? "-" : prev.modRevision())));
            assertEquals(List.of("2:-", "3:1", "4:3"), seen);
            assertEquals(5, next, "where to go on");
        }
    }

    @Test
    void leasesAreTheLiveKeysLeaseIdsAtARevision() throws Exception {
        try (StoreHistory x = load(KeyValue.put(b("/a"), 1, 1, 1, b("v"), 9), KeyValue.put(b("/b"), 2, 2, 1, b("w"), 9), KeyValue.delete(b("/a"), 3))) {
            assertEquals(List.of("/a", "/b"), x.leases(2).get(9L).keys().stream().map(StoreHistoryTest::s).toList());
            assertEquals(List.of("/b"), x.leases(3).get(9L).keys().stream().map(StoreHistoryTest::s).toList());
            assertEquals(List.of("/b"), x.liveOnLease(9).stream().map(StoreHistoryTest::s).toList());
        }
    }
}
