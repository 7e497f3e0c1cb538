package dev.walkit.format;

import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Damage one named byte (or span) of a valid log and assert the exact finding. */
class DamageTest {
    @TempDir
    Path dir;

    private List<Item> read(byte[] log) throws IOException {
        return read(log, ReaderOptions.defaults());
    }

    private List<Item> read(byte[] log, ReaderOptions o) throws IOException {
        Path p = LogBuilder.write(dir, "wal", log);
        List<Item> out = new ArrayList<>();
        try (WalReader r = WalReader.open(p, o)) {
            for (ReadResult x; (x = r.next()) != null; ) {
                out.add(new Item(x.offset(), x.length(), x instanceof DamageSpan d ? d : null));
            }
        }
        long pos = 0;
        for (Item x : out) {
            assertEquals(pos, x.offset(), "results are contiguous");
            pos += x.length();
        }
        assertEquals(log.length, pos, "every byte accounted for once");
        return out;
    }

    /** {@code log} with {@code bytes} inserted at {@code at}. */
    private static byte[] insert(byte[] log, int at, byte[] bytes) {
        byte[] out = new byte[log.length + bytes.length];
        System.arraycopy(log, 0, out, 0, at);
        System.arraycopy(bytes, 0, out, at, bytes.length);
        System.arraycopy(log, at, out, at + bytes.length, log.length - at);
        return out;
    }

    /** One result, copied out of the flyweight; span is null for a valid record. */
    private record Item(long offset, long length, DamageSpan span) {
    }

    private static List<DamageSpan> spans(List<Item> rs) {
        return rs.stream().filter(r -> r.span() != null).map(Item::span).toList();
    }

    private static void assertSpan(DamageSpan d, DamageKind kind, long offset, long length) {
        assertEquals(kind, d.kind(), d.toString());
        assertEquals(offset, d.offset(), d.toString());
        assertEquals(length, d.length(), d.toString());
    }

    @Test
    void flippedPayloadByteIsCrcMismatchOfThatRecord() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] log = b.bytes();
        log[(int) b.offset(4) + RecordLayout.KV_OFFSET + 7] ^= 0x01; // a key byte of record 4
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.CRC_MISMATCH, b.offset(4), b.length(4));
        assertTrue(d.get(0).storedCrc() >= 0 && d.get(0).computedCrc() >= 0 && d.get(0).storedCrc() != d.get(0).computedCrc());
    }

    @Test
    void reservedFlagBitIsBadHeader() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] log = b.bytes();
        log[(int) b.offset(0) + RecordLayout.FLAGS_OFFSET] |= 0x40;
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.BAD_HEADER, 0, b.length(0));
        assertTrue(d.get(0).detail().contains("reserved flag bits"), d.get(0).detail());
    }

    @Test
    void recLenAboveMaximumIsBadHeader() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] log = b.bytes();
        LogBuilder.le(log).putInt((int) b.offset(9 - 1) + RecordLayout.REC_LEN_OFFSET, 0x7FFF_FFF0);
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.BAD_HEADER, b.offset(8), b.length(8));
        assertTrue(d.get(0).detail().contains("exceeds the maximum"), d.get(0).detail());
    }

    @Test
    void cutLastRecordIsTornTail() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] log = Arrays.copyOf(b.bytes(), b.bytes().length - 7);
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.TORN_TAIL, b.offset(9), b.length(9) - 7);
    }

    @Test
    void cutInsideTheHeaderIsTornTail() throws IOException {
        LogBuilder b = LogBuilder.puts(3);
        byte[] log = Arrays.copyOf(b.bytes(), (int) b.offset(2) + 5);
        List<DamageSpan> d = spans(read(log));
        assertSpan(d.get(0), DamageKind.TORN_TAIL, b.offset(2), 5);
    }

    @Test
    void insertedGarbageIsGarbageSpan() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] clean = b.bytes();
        byte[] garbage = new byte[100];
        new Random(7).nextBytes(garbage);
        garbage[0] = (byte) 0xFF;
        int at = (int) b.offset(5);
        byte[] log = insert(clean, at, garbage);
        List<Item> rs = read(log);
        List<DamageSpan> d = spans(rs);
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.GARBAGE_SPAN, at, 100);
        assertEquals(11, rs.size(), "10 valid records and the span");
    }

    @Test
    void zeroFilledBlockIsGarbageSpanUpToTheNextRecord() throws IOException {
        LogBuilder b = LogBuilder.puts(40);
        byte[] log = b.bytes();
        int from = (int) b.offset(3) + 10;
        Arrays.fill(log, from, from + 1000, (byte) 0);
        int next = 3;
        while (b.offset(next) < from + 1000) next++;
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.GARBAGE_SPAN, b.offset(3), b.offset(next) - b.offset(3));
    }

    @Test
    void wrongModRevOffsetWithGoodCrcIsInconsistentHeader() throws IOException {
        LogBuilder b = LogBuilder.puts(5);
        byte[] log = b.bytes();
        ByteBuffer buf = LogBuilder.le(log);
        int at = (int) b.offset(2);
        buf.putShort(at + RecordLayout.MOD_REV_OFFSET_OFFSET, (short) (buf.getShort(at + RecordLayout.MOD_REV_OFFSET_OFFSET) + 1));
        new RecordEncoder().writeCrc(buf, at, buf.getInt(at + RecordLayout.REC_LEN_OFFSET), CrcRange.STANDARD);
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.INCONSISTENT_HEADER, b.offset(2), b.length(2));
        assertEquals(0, spans(read(log, ReaderOptions.frame())).size(), "frame level does not decode");
    }

    @Test
    void invalidProtobufWithGoodCrcIsUndecodablePayload() throws IOException {
        LogBuilder b = LogBuilder.puts(5);
        byte[] log = b.bytes();
        ByteBuffer buf = LogBuilder.le(log);
        int at = (int) b.offset(1);
        int recLen = buf.getInt(at + RecordLayout.REC_LEN_OFFSET);
        RecordView v = new RecordView().wrap(buf, at, at);
        log[v.fields().valueStart() - 2] = (byte) 0x2F; // the value's tag, now field 5 with wire type 7
        new RecordEncoder().writeCrc(buf, at, recLen, CrcRange.STANDARD);
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.UNDECODABLE_PAYLOAD, b.offset(1), b.length(1));
    }

    @Test
    void crcRangeBugIsOneSpanNamingTheRange() throws IOException {
        for (CrcRange range : new CrcRange[] {CrcRange.PAYLOAD_ONLY, CrcRange.SKIP_FLAGS}) {
            LogBuilder b = LogBuilder.puts(20);
            byte[] log = b.bytes();
            ByteBuffer buf = LogBuilder.le(log);
            for (int i = 0; i < b.count(); i++) {
                int at = (int) b.offset(i);
                new RecordEncoder().writeCrc(buf, at, buf.getInt(at + RecordLayout.REC_LEN_OFFSET), range);
            }
            List<DamageSpan> d = spans(read(log));
            assertEquals(1, d.size());
            assertSpan(d.get(0), DamageKind.CRC_RANGE_BUG, 0, log.length);
            assertEquals(range, d.get(0).crcRange());
            assertEquals(20, d.get(0).records());
            assertEquals(0, spans(read(log, ReaderOptions.defaults().withAcceptCrc(range))).size());
        }
    }

    @Test
    void damagedMiddleRecordDropsItsWholeTransaction() throws IOException {
        LogBuilder b = new LogBuilder();
        byte[] k1 = "/a".getBytes(StandardCharsets.UTF_8);
        byte[] k2 = "/b".getBytes(StandardCharsets.UTF_8);
        byte[] k3 = "/c".getBytes(StandardCharsets.UTF_8);
        b.add(KeyValue.put(k1, 1, 1, 1, new byte[] {1}, 0));
        b.add(KeyValue.put(k1, 1, 2, 2, new byte[] {2}, 0).withFlags(Flags.TXN_CONT));
        b.add(KeyValue.put(k2, 2, 2, 1, new byte[] {2}, 0).withFlags(Flags.TXN_CONT));
        b.add(KeyValue.put(k3, 2, 2, 1, new byte[] {2}, 0));
        b.add(KeyValue.put(k3, 2, 3, 2, new byte[] {3}, 0));
        byte[] log = b.bytes();
        log[(int) b.offset(2) + 20] ^= 0x10;
        Path p = LogBuilder.write(dir, "wal", log);
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(2, s.transactions(), "revisions 1 and 3 applied; 2 dropped whole");
            assertEquals(3, s.revision());
            assertEquals(2, s.findingCounts().get(DamageKind.INCOMPLETE_TRANSACTION), "before and after the damage");
            Finding inc = s.findings().get(0);
            assertEquals(b.offset(1), inc.offset());
            assertEquals(2, inc.revision());
            assertEquals(1, s.keys().get(k1).version(), "the dropped transaction's put of /a is not applied");
            assertEquals(null, s.keys().get(k2));
            assertEquals(b.offset(3), s.findings().get(1).offset(), "the closing record after the damage is dropped too");
            assertEquals(1, s.findingCounts().get(DamageKind.VERSION_MISMATCH), "/c's put at 3 follows a put that was dropped");
        }
    }

    @Test
    void leasesCountLiveKeysOnlyAndTheNextIdPassesEverySeen() throws IOException {
        LogBuilder b = new LogBuilder();
        b.add(KeyValue.put("/a".getBytes(StandardCharsets.UTF_8), 1, 1, 1, new byte[] {1}, 7000));
        b.add(KeyValue.put("/b".getBytes(StandardCharsets.UTF_8), 2, 2, 1, new byte[] {1}, 9000));
        b.add(KeyValue.put("/c".getBytes(StandardCharsets.UTF_8), 3, 3, 1, new byte[] {1}, 7000));
        b.add(KeyValue.delete("/b".getBytes(StandardCharsets.UTF_8), 4));
        Path p = LogBuilder.write(dir, "wal", b.bytes());
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            var leases = s.leases(120);
            assertEquals(java.util.Map.of(7000L, 2), leases.keysByLease(), "the deleted key's lease 9000 is gone");
            assertEquals(9001, leases.nextLeaseId(), "greater than every lease ID seen");
            assertEquals(120, leases.ttlSeconds());
        }
    }

    @Test
    void repeatedRevisionIsDroppedAndReported() throws IOException {
        LogBuilder b = LogBuilder.puts(5);
        b.add(KeyValue.put("/x".getBytes(StandardCharsets.UTF_8), 4, 4, 1, new byte[] {9}, 0));
        Path p = LogBuilder.write(dir, "wal", b.bytes());
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(5, s.revision());
            assertEquals(1, s.findingCounts().get(DamageKind.REVISION_REGRESSION));
            assertEquals(b.offset(5), s.findings().get(0).offset());
            assertEquals(null, s.keys().get("/x".getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void recordAppendedTwiceIsDuplicatedRecordNotARegression() throws IOException {
        LogBuilder b = LogBuilder.puts(6);
        byte[] clean = b.bytes();
        int at = (int) b.offset(3);
        int n = b.length(3);
        byte[] log = insert(clean, at + n, Arrays.copyOfRange(clean, at, at + n)); // record 3 (revision 4) written twice
        Path p = LogBuilder.write(dir, "wal", log);
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(6, s.revision());
            assertEquals(6, s.transactions(), "the repeat is not applied");
            assertEquals(1, s.findings().size(), s.findings().toString());
            Finding d = s.findings().get(0);
            assertEquals(DamageKind.DUPLICATED_RECORD, d.kind());
            assertEquals(at + n, d.offset());
            assertEquals(n, d.length());
            assertEquals(4, d.revision());
            assertTrue(s.damage().isEmpty());
        }
        // The same revision with one byte of its value changed is a revision regression, as before.
        byte[] changed = log.clone();
        changed[at + n + n - RecordLayout.CRC_LENGTH - 1] ^= 1;
        new RecordEncoder().writeCrc(ByteBuffer.wrap(changed).order(java.nio.ByteOrder.LITTLE_ENDIAN), at + n, n - RecordLayout.OVERHEAD,
                CrcRange.STANDARD);
        try (WalFile f = WalFile.open(LogBuilder.write(dir, "wal2", changed), RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(List.of(DamageKind.REVISION_REGRESSION), s.findings().stream().map(Finding::kind).toList());
        }
    }

    @Test
    void markerCountingMoreThanPresentIsTruncatedSnapshot() throws IOException {
        LogBuilder b = new LogBuilder();
        b.add(RecordEncoder.snapshotMarker(10, 5));
        for (int i = 0; i < 3; i++) {
            b.add(KeyValue.put(("/k" + i).getBytes(StandardCharsets.UTF_8), 1 + i, 1 + i, 1, new byte[] {1}, 0).withFlags(Flags.SNAPSHOT));
        }
        b.add(KeyValue.put("/z".getBytes(StandardCharsets.UTF_8), 11, 11, 1, new byte[] {1}, 0));
        Path p = LogBuilder.write(dir, "wal", b.bytes());
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(10, s.compactRevision());
            assertEquals(11, s.revision());
            assertEquals(4, s.keys().liveCount());
            assertEquals(1, s.findingCounts().get(DamageKind.TRUNCATED_SNAPSHOT));
            assertEquals(0, s.findings().get(0).offset());
        }
    }

    @Test
    void largeGarbageSpanIsCrossedAndCounted() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] clean = b.bytes();
        byte[] garbage = new byte[8 << 20];
        new Random(42).nextBytes(garbage);
        garbage[0] = (byte) 0xFF;
        int at = (int) b.offset(5);
        byte[] log = insert(clean, at, garbage);
        List<DamageSpan> d = spans(read(log));
        assertEquals(1, d.size());
        assertSpan(d.get(0), DamageKind.GARBAGE_SPAN, at, garbage.length);
    }

    @Test
    void aLargeUnverifiedLengthNeverGrowsTheWindow() throws IOException {
        LogBuilder b = LogBuilder.puts(10);
        byte[] clean = b.bytes();
        // A plausible header claiming 3 MiB, then random bytes: no CRC vouches for it.
        byte[] fake = new byte[3 << 20];
        new Random(5).nextBytes(fake);
        ByteBuffer h = LogBuilder.le(fake);
        h.put(0, (byte) 0).putShort(1, (short) 5).putShort(3, (short) 20).putInt(5, (3 << 20) - 100);
        int at = (int) b.offset(5);
        byte[] log = insert(clean, at, fake);
        Path p = LogBuilder.write(dir, "wal", log);
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN, 1 << 20); WalReader r = new WalReader(f, ReaderOptions.defaults())) {
            List<DamageSpan> d = new ArrayList<>();
            int valid = 0;
            for (ReadResult x; (x = r.next()) != null; ) {
                if (x instanceof DamageSpan s) d.add(s);
                else valid++;
            }
            assertEquals(10, valid);
            assertEquals(1, d.size());
            assertSpan(d.get(0), DamageKind.GARBAGE_SPAN, at, fake.length);
            assertEquals(1 << 20, f.windowCapacity(), "the window was not grown for an unverified length");
        }
    }

    @Test
    void aValidRecordLargerThanTheWindowIsRead() throws IOException {
        LogBuilder b = LogBuilder.puts(3);
        byte[] big = new byte[3 << 20];
        new Random(6).nextBytes(big);
        b.add(KeyValue.put("/big".getBytes(StandardCharsets.UTF_8), 4, 4, 1, big, 0));
        b.add(KeyValue.put("/after".getBytes(StandardCharsets.UTF_8), 5, 5, 1, new byte[] {1}, 0));
        Path p = LogBuilder.write(dir, "wal", b.bytes());
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN, 1 << 20); WalReader r = new WalReader(f, ReaderOptions.defaults())) {
            int valid = 0;
            for (ReadResult x; (x = r.next()) != null; ) {
                assertTrue(x instanceof RecordView, x.toString());
                if (((RecordView) x).revision() == 4) assertEquals(big.length, ((RecordView) x).fields().valueLength());
                valid++;
            }
            assertEquals(5, valid);
        }
    }

    @Test
    void recordsStraddlingWindowBoundariesReadTheSame() throws IOException {
        LogBuilder b = LogBuilder.puts(300);
        byte[] log = b.bytes();
        log[(int) b.offset(150) + 30] ^= 0x04;
        Path p = LogBuilder.write(dir, "wal", log);
        List<String> want = new ArrayList<>();
        List<String> got = new ArrayList<>();
        ReaderOptions small = ReaderOptions.defaults().withMaxRecLen(4096);
        try (WalFile f = WalFile.open(p, 4096); WalReader r = new WalReader(f, small)) {
            for (ReadResult x; (x = r.next()) != null; ) want.add(x.offset() + "+" + x.length() + (x instanceof DamageSpan d ? d.kind() : ""));
        }
        try (WalFile f = WalFile.open(p, 4096, 1000); WalReader r = new WalReader(f, small)) {
            for (ReadResult x; (x = r.next()) != null; ) got.add(x.offset() + "+" + x.length() + (x instanceof DamageSpan d ? d.kind() : ""));
        }
        assertEquals(want, got);
        assertEquals(300, got.size());
    }
}
