package dev.walkit.recover;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.RecordEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Never a wrong or empty log (issue 18): input with nothing recoverable is refused, --to-revision holds whatever is
 * damaged, R past the log is a usage error; a run that writes nothing leaves DIR as it found it.
 */
class RefusalTest {
    @TempDir
    Path dir;

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Path input(byte[] log) throws Exception {
        return LogBuilder.write(Files.createDirectories(dir.resolve("in")), "wal", log);
    }

    private Path out() {
        return dir.resolve("out");
    }

    /** A compacted log: a marker of compact revision 4 counting two records (revisions 3 and 4), then revisions 5, 6. */
    private static LogBuilder compacted() {
        return new LogBuilder().add(RecordEncoder.snapshotMarker(4, 2))
                .add(KeyValue.put(k("/a"), 3, 3, 1, k("a"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/b"), 4, 4, 1, k("b"), 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put(k("/c"), 5, 5, 1, k("c"), 0))
                .add(KeyValue.put(k("/d"), 6, 6, 1, k("d"), 0));
    }

    @Test
    void toRevisionBelowASnapshotWhoseMarkerIsLostIsRefused() throws Exception {
        LogBuilder b = compacted();
        byte[] log = b.bytes();
        log[b.length(0) - 1] ^= 0x01; // the marker's last CRC byte: the marker is lost, its records remain
        WalRecoverTest.Run r = WalRecoverTest.run("--to-revision", "1", "--out", out().toString(), input(log).toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--to-revision 1 is below the revision of the snapshot prefix (its marker lost) 4: history before it is gone"),
                r.err());
        assertFalse(Files.exists(out()), "a refused run does not create DIR");
    }

    @Test
    void toRevisionBelowTheCompactRevisionIsRefusedAsBefore() throws Exception {
        WalRecoverTest.Run r = WalRecoverTest.run("--to-revision", "2", "--out", out().toString(), input(compacted().bytes()).toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--to-revision 2 is below the compact revision 4"), r.err());
        assertFalse(Files.exists(out()));
    }

    @Test
    void toRevisionPastTheLastRevisionIsAUsageErrorThatNamesIt() throws Exception {
        WalRecoverTest.Run r = WalRecoverTest.run("--to-revision", "99", "--out", out().toString(), input(LogBuilder.puts(5).bytes()).toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("walrecover: --to-revision 99 is past the last revision in the log, 5: nothing to stop at\n", r.err());
        assertFalse(Files.exists(out()));
        assertEquals(0, WalRecoverTest.run("--to-revision", "5", "--out", out().toString(), dir.resolve("in/wal").toString()).exit());
    }

    /** Two records of an open transaction, and the log ends: valid records, no complete transaction. */
    private static byte[] onlyAnIncompleteTransaction() {
        return new LogBuilder().add(KeyValue.put(k("/a"), 1, 1, 1, k("a"), 0).withFlags(Flags.TXN_CONT))
                .add(KeyValue.put(k("/b"), 1, 1, 1, k("b"), 0).withFlags(Flags.TXN_CONT)).bytes();
    }

    @Test
    void nothingRecoverableIsARefusalThatWritesNothing() throws Exception {
        WalRecoverTest.Run r = WalRecoverTest.run("--out", out().toString(), input(onlyAnIncompleteTransaction()).toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("nothing to recover: no complete transaction survived"), r.err());
        assertTrue(r.err().contains("--allow-empty"), r.err());
        assertFalse(Files.exists(out()), "nothing written, DIR not created");
    }

    @Test
    void allowEmptyWritesAnEmptyVerifiedLog() throws Exception {
        WalRecoverTest.Run r = WalRecoverTest.run("--allow-empty", "--out", out().toString(), input(onlyAnIncompleteTransaction()).toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(0, Files.size(out().resolve("wal")));
    }

    @Test
    void pointInTimeWithDamageAtTheFirstRecordIsNothingToRecover() throws Exception {
        LogBuilder b = LogBuilder.puts(5);
        byte[] log = b.bytes();
        log[b.length(0) - 1] ^= 0x01;
        WalRecoverTest.Run r = WalRecoverTest.run("--policy", "point-in-time", "--out", out().toString(), input(log).toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("nothing to recover"), r.err());
        assertEquals(0, WalRecoverTest.run("--out", out().toString(), dir.resolve("in/wal").toString()).exit(), "salvage keeps the other four");
    }

    @Test
    void aRefusalLeavesAnExistingDirAsItWas() throws Exception {
        Path out = Files.createDirectories(out());
        Files.writeString(out.resolve("note"), "mine");
        WalRecoverTest.Run r = WalRecoverTest.run("--out", out.toString(), input(onlyAnIncompleteTransaction()).toString());
        assertEquals(3, r.exit());
        try (var names = Files.list(out)) {
            assertEquals(List.of("note"), names.map(p -> p.getFileName().toString()).toList(), "no lock file, no temp file");
        }
    }

    @Test
    void theTempFilesOfACrashedRunAreRemovedUnderTheLockAndReported() throws Exception {
        Path out = Files.createDirectories(out());
        Files.write(out.resolve(".wal.tmp-123-456"), new byte[10]);
        Files.write(out.resolve(".leases.json.tmp-123-789"), new byte[3]);
        Files.write(out.resolve(".wal.tmp-77--5"), new byte[1]); // System.nanoTime may be negative
        Files.writeString(out.resolve(".wal.tmp-notours"), "x");
        WalRecoverTest.Run r = WalRecoverTest.run("--out", out.toString(), input(LogBuilder.puts(5).bytes()).toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("  removed .wal.tmp-123-456 (10 bytes): a temp file of an earlier run that did not finish"), r.out());
        assertTrue(r.out().contains("  removed .leases.json.tmp-123-789 (3 bytes)"), r.out());
        assertFalse(Files.exists(out.resolve(".wal.tmp-123-456")));
        assertFalse(Files.exists(out.resolve(".leases.json.tmp-123-789")));
        assertFalse(Files.exists(out.resolve(".wal.tmp-77--5")));
        assertTrue(Files.exists(out.resolve(".wal.tmp-notours")), "a file that is not a walrecover temp file stays");
    }

    @Test
    void aCrcRangeBugLogWithToRevisionIsRefusedForTheBugNotAsAUsageError() throws Exception {
        // No record valid over the standard range: the last revision read is unknown, and the crc bug is the answer.
        Path in = dev.walkit.format.Fixtures.path("vectors/small-crc-range-bug/wal");
        WalRecoverTest.Run r = WalRecoverTest.run("--to-revision", "5", "--out", out().toString(), in.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("the crc range bug"), r.err());
        assertFalse(Files.exists(out()));
    }
}
