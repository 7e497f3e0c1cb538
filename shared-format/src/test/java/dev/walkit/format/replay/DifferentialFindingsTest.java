package dev.walkit.format.replay;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.NotAWalException;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cases differential testing against an independent implementation of the spec found, where the replay
 * copies disagreed with each other or with the spec (issue 17), one test each, at the engine: replay with
 * findings ({@link Replayer}) and the light replay ({@link CleanScan}) must say the same.
 */
class DifferentialFindingsTest {
    @TempDir
    Path dir;

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KeyValue put(String key, long rev) {
        return KeyValue.put(k(key), rev, rev, 1, k("v" + rev), 0);
    }

    private Replayer replay(byte[] log, Replayer.Options o) throws IOException {
        Path p = LogBuilder.write(dir, "wal", log);
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            return Replay.run(f, ro, o, null).state();
        }
    }

    private String lightReplay(byte[] log, CleanReplay c) throws IOException {
        Path p = LogBuilder.write(dir, "light", log);
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            return CleanScan.scan(f, ro, c, CleanScan.MIN_SPLIT).irregularity();
        }
    }

    private static List<String> live(Replayer s) {
        List<String> out = new ArrayList<>();
        for (KeyState x : s.keys().sortedLive()) out.add(new String(x.key(), StandardCharsets.UTF_8));
        return out;
    }

    @ParameterizedTest(name = "SNAPSHOT on record {0} of 3")
    @ValueSource(ints = {1, 2})
    void snapshotFlaggedRecordInsideATransactionDropsItWhole(int flagged) throws IOException {
        // [/x] [/a TXN_CONT, /b TXN_CONT, /c] [/y]; SNAPSHOT also set on the middle or the closing record.
        LogBuilder b = new LogBuilder().add(put("/x", 1));
        String[] keys = {"/a", "/b", "/c"};
        for (int i = 0; i < 3; i++) {
            int flags = (i < 2 ? Flags.TXN_CONT : 0) | (i == flagged ? Flags.SNAPSHOT : 0);
            b.add(put(keys[i], 2).withFlags(flags));
        }
        b.add(put("/y", 3));
        Replayer s = replay(b.bytes(), Replayer.Options.defaults());
        assertEquals(List.of("/x", "/y"), live(s));
        assertEquals(1, s.findings().size(), s.findings().toString());
        Finding f = s.findings().get(0);
        assertEquals(DamageKind.MISPLACED_SNAPSHOT, f.kind());
        assertEquals(b.offset(1), f.offset());
        assertEquals(3, f.records());
        assertEquals(2, s.transactions());
        // The light replay stops there too: walverify's semantic level can never call it healthy.
        assertNotNull(lightReplay(b.bytes(), CleanReplay.whole()));
    }

    @Test
    void crcRangeBugIsFoundWhenTheFirstRecordIsDamaged() throws IOException {
        LogBuilder b = LogBuilder.puts(40);
        byte[] log = b.bytes();
        ByteBuffer buf = LogBuilder.le(log);
        RecordEncoder enc = new RecordEncoder();
        for (int i = 0; i < b.count(); i++) {
            enc.writeCrc(buf, (int) b.offset(i), b.length(i) - RecordLayout.OVERHEAD, CrcRange.PAYLOAD_ONLY);
        }
        log[(int) b.offset(0) + RecordLayout.KV_OFFSET + 7] ^= 0x20; // a key byte of record 0
        Path p = LogBuilder.write(dir, "wal", log);
        List<DamageSpan> spans = new ArrayList<>();
        try (WalReader r = WalReader.open(p, ReaderOptions.defaults())) {
            for (ReadResult x; (x = r.next()) != null; ) {
                assertFalse(x instanceof RecordView, "no record validates under the standard range");
                spans.add((DamageSpan) x);
            }
        }
        assertEquals(2, spans.size(), spans.toString());
        assertEquals(DamageKind.CRC_MISMATCH, spans.get(0).kind());
        assertEquals(b.length(0), spans.get(0).length());
        assertEquals(DamageKind.CRC_RANGE_BUG, spans.get(1).kind());
        assertEquals(b.offset(1), spans.get(1).offset());
        assertEquals(39, spans.get(1).records());
        assertEquals(CrcRange.PAYLOAD_ONLY, spans.get(1).crcRange());
        // Accepted, the 39 intact records replay.
        ReaderOptions accept = ReaderOptions.defaults().withAcceptCrc(CrcRange.PAYLOAD_ONLY);
        try (WalFile f = WalFile.open(p, accept.maxRecLen())) {
            Replayer s = Replay.run(f, accept, Replayer.Options.defaults(), null).state();
            assertEquals(39, s.keys().liveCount());
        }
    }

    @ParameterizedTest(name = "{0} byte(s)")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void filesOfOneToEightBytesAreNotAWal(int n) throws IOException {
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) bytes[i] = (byte) (n % 2 == 0 ? 0 : 1 + i);
        Path p = LogBuilder.write(dir, "wal", bytes);
        try (WalFile f = WalFile.open(p, RecordLayout.DEFAULT_MAX_REC_LEN)) {
            assertFalse(Wal.sniff(f, RecordLayout.DEFAULT_MAX_REC_LEN).anyValid());
            NotAWalException e = assertThrows(NotAWalException.class, () -> Wal.requireWal(f, RecordLayout.DEFAULT_MAX_REC_LEN));
            assertTrue(e.getMessage().contains("not a WAL"), e.getMessage());
        }
    }

    /** marker (count 2), /a, /a again, /b, then ordinary /c and /d. */
    private static LogBuilder duplicatedSnapshotRecord() {
        return new LogBuilder().add(RecordEncoder.snapshotMarker(5, 2))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/b"), 4, 5, 2, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(put("/c", 6)).add(put("/d", 7));
    }

    @Test
    void snapshotPrefixWithADuplicatedRecordKeepsEveryIntactRecordUnderSalvage() throws IOException {
        LogBuilder b = duplicatedSnapshotRecord();
        Replayer s = replay(b.bytes(), Replayer.Options.defaults());
        assertEquals(List.of("/a", "/b", "/c", "/d"), live(s));
        assertEquals(1, s.findings().size(), s.findings().toString());
        assertEquals(DamageKind.MISPLACED_SNAPSHOT, s.findings().get(0).kind());
        assertEquals(b.offset(2), s.findings().get(0).offset());
        assertEquals(1, s.findings().get(0).records());
        assertEquals(7, s.revision());
        assertNotNull(lightReplay(b.bytes(), CleanReplay.whole()));
    }

    @Test
    void snapshotPrefixWithADuplicatedRecordStopsPointInTimeThere() throws IOException {
        Replayer s = replay(duplicatedSnapshotRecord().bytes(), new Replayer.Options(false, Long.MAX_VALUE, true));
        assertEquals(List.of("/a"), live(s));
        assertEquals(5, s.revision());
    }

    @Test
    void snapshotPrefixWithMoreRecordsThanCountedKeepsThemAndSaysSo() throws IOException {
        LogBuilder b = new LogBuilder().add(RecordEncoder.snapshotMarker(5, 1))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/b"), 4, 5, 2, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(put("/c", 6));
        Replayer s = replay(b.bytes(), Replayer.Options.defaults());
        assertEquals(List.of("/a", "/b", "/c"), live(s));
        assertEquals(1, s.findings().size(), s.findings().toString());
        Finding f = s.findings().get(0);
        assertEquals(DamageKind.MISPLACED_SNAPSHOT, f.kind());
        assertEquals(b.offset(2), f.offset());
        assertEquals(0, f.records());
        assertTrue(f.detail().startsWith("more snapshot records than the marker counts (1)"), f.detail());
    }

    @Test
    void readBackOfAnOutputIsTheSameCheckAsWalverify() throws IOException {
        // A salvage that dropped /a's creating transaction: /a at revision 3 says create_revision 1, version 2.
        byte[] log = new LogBuilder().add(put("/b", 2)).add(KeyValue.put(k("/a"), 1, 3, 2, k("a"), 0)).bytes();
        Replayer s = replay(log, Replayer.Options.defaults());
        assertEquals(DamageKind.VERSION_MISMATCH, s.findings().get(0).kind());
        // The digest read-back applies the same rules as walverify's semantic level: it does not take this log.
        assertNotNull(lightReplay(log, CleanReplay.forDigest()));
        assertNotNull(lightReplay(log, CleanReplay.whole()));
    }

    @Test
    void aCleanLogIsTakenByBothReplays() throws IOException {
        byte[] log = LogBuilder.puts(50).bytes();
        assertTrue(replay(log, Replayer.Options.defaults()).findings().isEmpty());
        assertEquals(null, lightReplay(log, CleanReplay.whole()));
        assertEquals(null, lightReplay(log, CleanReplay.forDigest()));
    }

    @Test
    void aListenerIsToldOfEachKeptBreakAsItIsFound() throws IOException {
        // /a at revision 3 with version 2 (its creating transaction missing), then a DELETE of the absent /c.
        LogBuilder b = new LogBuilder().add(put("/b", 2)).add(KeyValue.put(k("/a"), 1, 3, 2, k("a"), 0)).add(put("/d", 4))
                .add(KeyValue.delete(k("/c"), 5));
        Path p = LogBuilder.write(dir, "kept", b.bytes());
        ReaderOptions ro = ReaderOptions.defaults();
        List<String> told = new java.util.ArrayList<>();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            Replayer s = Replay.run(f, ro, Replayer.Options.defaults(), new Replayer.Listener() {
                @Override
                public void keptBreak(dev.walkit.format.Finding x, byte[] key) {
                    told.add(x.kind().label() + "@" + x.offset() + " " + new String(key, StandardCharsets.UTF_8));
                }
            }).state();
            assertEquals(List.of("version-create-revision-mismatch@" + b.offset(1) + " /a", "delete-of-absent-key@" + b.offset(3) + " /c"), told);
            assertEquals(2, s.keptBreaks());
            assertEquals(b.offset(1), s.firstKeptBreak().offset());
        }
    }
}
