package dev.walkit.recover;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.CrcRange;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * walrecover on the cases where the replay copies disagreed (issue 17): each output is written, verified by
 * the check walverify's semantic level makes (no damage, no finding at all), or the input is refused.
 */
class DifferentialCasesTest {
    @TempDir
    Path dir;

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KeyValue put(String key, long create, long rev, long version) {
        return KeyValue.put(k(key), create, rev, version, k("v" + rev), 0);
    }

    /** Replays the output as walverify --level semantic does: nothing to report. */
    private static Replayer assertVerifiesClean(Path wal) throws IOException {
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            Replayer s = Replay.run(f, ro, Replayer.Options.defaults(), null).state();
            assertTrue(s.damage().isEmpty(), s.damage().toString());
            assertTrue(s.findings().isEmpty(), s.findings().toString());
            return s;
        }
    }

    private JsonNode recover(byte[] log, int wantExit, String... extra) throws IOException {
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", log);
        String[] args = new String[extra.length + 5];
        System.arraycopy(extra, 0, args, 0, extra.length);
        args[extra.length] = "-w";
        args[extra.length + 1] = "json";
        args[extra.length + 2] = "--out";
        args[extra.length + 3] = dir.resolve("out").toString();
        args[extra.length + 4] = in.toString();
        WalRecoverTest.Run r = WalRecoverTest.run(args);
        assertEquals(wantExit, r.exit(), r.out() + r.err());
        return r.out().isBlank() ? null : new ObjectMapper().readTree(r.out());
    }

    @ParameterizedTest(name = "SNAPSHOT on record {0} of the transaction")
    @ValueSource(ints = {1, 2})
    void snapshotFlaggedRecordInATransactionIsDroppedAndTheOutputVerifies(int flagged) throws IOException {
        LogBuilder b = new LogBuilder().add(put("/x", 1, 1, 1));
        for (int i = 0; i < 3; i++) {
            b.add(put("/t" + i, 2, 2, 1).withFlags((i < 2 ? Flags.TXN_CONT : 0) | (i == flagged ? Flags.SNAPSHOT : 0)));
        }
        b.add(put("/y", 3, 3, 1));
        JsonNode j = recover(b.bytes(), 0);
        assertEquals(1, j.get("dropped_transactions").asInt());
        assertEquals("history", j.get("form").asText());
        assertEquals(2, assertVerifiesClean(dir.resolve("out/wal")).keys().liveCount());
    }

    /**
     * Issue 30, point 15: a CRC-mismatched record (revision 56) followed by a valid record (the first of revision 57,
     * whose closing record is torn). §9's tail is the damage after which no valid record follows, so the mismatch is
     * not tail: tolerate-tail refuses (it accepted, exit 0); salvage keeps the 55 revisions before it.
     */
    @Test
    void aDamagedRecordThatAValidRecordFollowsIsNotTheTail() throws IOException {
        LogBuilder b = LogBuilder.puts(56);
        b.add(put("/t0", 57, 57, 1).withFlags(Flags.TXN_CONT));
        b.add(put("/t1", 57, 57, 1));
        byte[] whole = b.bytes();
        byte[] log = java.util.Arrays.copyOf(whole, (int) (b.offset(57) + b.length(57) / 2)); // the closing record torn
        log[(int) b.offset(55) + RecordLayout.KV_OFFSET + 3] ^= 0x10; // revision 56's record: a CRC mismatch
        JsonNode refused = recover(log, 3, "--policy", "tolerate-tail");
        assertTrue(refused == null || !refused.path("output").has("checksum"), "nothing written");
        assertTrue(refused == null || refused.toString().contains("--policy salvage keeps every complete transaction around it"), String.valueOf(refused));
        assertFalse(Files.exists(dir.resolve("out/wal")), "a refusal writes nothing");
        JsonNode salvaged = recover(log, 0, "--policy", "salvage");
        assertEquals(55, assertVerifiesClean(dir.resolve("out/wal")).revision());
        assertTrue(salvaged.get("dropped_transactions").asInt() >= 1, salvaged.toString());
    }

    /** Issue 30, point 7: a refused rerun removes the lock file a killed run left, and leaves a lock another run holds. */
    @Test
    void aRefusedRerunLeavesNoStaleLock() throws Exception {
        byte[] log = LogBuilder.puts(5).bytes();
        recover(log, 0);
        Path lock = dir.resolve("out/.walkit.lock");
        Files.writeString(lock, "12345"); // a killed run's: its process is gone, the OS released its lock
        recover(log, 2);
        assertFalse(Files.exists(lock), "a refused rerun removes a stale lock");
        Files.writeString(lock, "");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lock, java.nio.file.StandardOpenOption.WRITE);
             java.nio.channels.FileLock held = ch.lock()) {
            recover(log, 2);
            assertTrue(Files.exists(lock) && held.isValid(), "a held lock is left to its holder");
        }
    }

    @Test
    void crcRangeBugWithTheFirstRecordDamagedIsRefusedNotEmptied() throws IOException {
        LogBuilder b = LogBuilder.puts(30);
        byte[] log = b.bytes();
        ByteBuffer buf = LogBuilder.le(log);
        for (int i = 0; i < b.count(); i++) {
            new RecordEncoder().writeCrc(buf, (int) b.offset(i), b.length(i) - RecordLayout.OVERHEAD, CrcRange.PAYLOAD_ONLY);
        }
        log[RecordLayout.KV_OFFSET + 7] ^= 0x20;
        JsonNode refused = recover(log, 3);
        assertTrue(refused.get("refused").asText().contains("--accept-crc payload-only"), refused.toString());
        assertFalse(Files.exists(dir.resolve("out/wal")));
        JsonNode accepted = recover(log, 0, "--accept-crc", "payload-only");
        assertEquals(29, accepted.get("live_keys").asInt());
        assertEquals(29, assertVerifiesClean(dir.resolve("out/wal")).keys().liveCount());
    }

    @ParameterizedTest(name = "{0} byte(s)")
    @ValueSource(ints = {1, 4, 8})
    void aFileOfAFewBytesIsNotAWal(int n) throws IOException {
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", new byte[n]);
        WalRecoverTest.Run r = WalRecoverTest.run("--out", dir.resolve("out").toString(), in.toString());
        assertEquals(4, r.exit(), r.err());
        assertTrue(r.err().contains("not a WAL"), r.err());
        assertFalse(Files.exists(dir.resolve("out")), "a refused run creates nothing");
    }

    @Test
    void salvageThatDroppedACreatingTransactionWritesTheSnapshotFormWhichVerifies() throws IOException {
        LogBuilder b = new LogBuilder().add(put("/a", 1, 1, 1)).add(put("/b", 2, 2, 1)).add(put("/a", 1, 3, 2)).add(put("/b", 2, 4, 2));
        byte[] log = b.bytes();
        log[RecordLayout.KV_OFFSET + 6] ^= 0x01; // a key byte of /a's creating record: a crc mismatch
        JsonNode j = recover(log, 0);
        assertEquals("snapshot", j.get("form").asText());
        assertTrue(j.get("form_why").asText().contains("version-create-revision-mismatch at offset " + b.offset(2)), j.toString());
        assertTrue(j.get("form_why").asText().contains("keys whose chain broke: /a"), j.toString());
        Replayer s = assertVerifiesClean(dir.resolve("out/wal"));
        assertEquals(2, s.keys().liveCount());
        assertEquals(4, s.revision());
    }

    @Test
    void formHistoryKeepsTheRecordsAsTheyAreAndListsTheFinding() throws IOException {
        LogBuilder b = new LogBuilder().add(put("/a", 1, 1, 1)).add(put("/b", 2, 2, 1)).add(put("/a", 1, 3, 2)).add(put("/b", 2, 4, 2));
        byte[] log = b.bytes();
        log[RecordLayout.KV_OFFSET + 6] ^= 0x01;
        JsonNode j = recover(log, 0, "--form", "history");
        assertEquals("history", j.get("form").asText(), j.toString());
        assertTrue(j.get("form_why").asText().contains("kept as they are (--form history)"), j.toString());
        assertEquals("version-create-revision-mismatch", j.get("findings").get(0).get("kind").asText(), j.toString());
        // The output is the three surviving records byte for byte: its replay makes the same finding.
        byte[] out = Files.readAllBytes(dir.resolve("out/wal"));
        assertEquals(log.length - b.length(0), out.length);
        assertArrayEquals(java.util.Arrays.copyOfRange(log, (int) b.offset(1), log.length), out);
    }

    @Test
    void compactAndFormHistoryExcludeEachOther() throws IOException {
        Path in = LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", LogBuilder.puts(3).bytes());
        WalRecoverTest.Run r = WalRecoverTest.run("--compact", "--form", "history", "--out", dir.resolve("out").toString(), in.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("walrecover: --compact is --form snapshot: it excludes --form history\n", r.err());
        WalRecoverTest.Run bad = WalRecoverTest.run("--form", "SNAPSHOT", "--out", dir.resolve("out").toString(), in.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("'SNAPSHOT' is not a form (auto, history, snapshot)"), bad.err());
    }

    @Test
    void snapshotPrefixWithADuplicatedRecordKeepsEveryIntactRecord() throws IOException {
        byte[] log = new LogBuilder().add(RecordEncoder.snapshotMarker(5, 2))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/b"), 4, 5, 2, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(put("/c", 6, 6, 1)).bytes();
        JsonNode j = recover(log, 0);
        assertEquals(3, j.get("live_keys").asInt());
        assertEquals(3, assertVerifiesClean(dir.resolve("out/wal")).keys().liveCount());
    }

    @Test
    void aPrefixCountThatDoesNotMatchKeepsTheHistoryFormWithTheCountOfWhatIsKept() throws IOException {
        byte[] log = new LogBuilder().add(RecordEncoder.snapshotMarker(5, 1))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/b"), 4, 5, 2, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(put("/c", 6, 6, 1)).bytes();
        JsonNode j = recover(log, 0);
        assertEquals("history", j.get("form").asText(), j.toString());
        Replayer s = assertVerifiesClean(dir.resolve("out/wal"));
        assertEquals(3, s.keys().liveCount());
        assertEquals(5, s.compactRevision());
    }

    @Test
    void snapshotKeysOutOfOrderAreWrittenInTheSnapshotForm() throws IOException {
        byte[] log = new LogBuilder().add(RecordEncoder.snapshotMarker(5, 2))
                .add(KeyValue.put(k("/b"), 4, 5, 2, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(put("/c", 6, 6, 1)).bytes();
        JsonNode j = recover(log, 0);
        assertEquals("snapshot", j.get("form").asText(), j.toString());
        assertTrue(j.get("form_why").asText().contains("misplaced-snapshot"), j.toString());
        assertEquals(3, assertVerifiesClean(dir.resolve("out/wal")).keys().liveCount());
    }
}
