package dev.walkit.verify;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.SnapshotPrefixWriter;
import dev.walkit.testdata.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code walverify --follow} on a log a writer appends to while it runs: records in progress wait, damage is told as
 * it is found (before the report), a compaction's rename is followed on, and a signal ends the follow with the log's
 * exit code.
 */
class FollowTest {
    @TempDir
    Path dir;

    static byte[] put(int rev) {
        return new RecordEncoder().encode(KeyValue.put(("/registry/configmaps/ns/cm-" + (rev % 20)).getBytes(StandardCharsets.US_ASCII),
                rev <= 20 ? rev : rev % 20 == 0 ? 20 : rev % 20, rev, rev <= 20 ? 1 : (rev - 1) / 20 + 1, ("{\"n\":" + rev + "}").getBytes(StandardCharsets.US_ASCII), 0));
    }

    /** Appends revisions {@code from..to} to {@code out}, a record at a time, each flushed, {@code pauseMs} apart. */
    static void append(FileOutputStream out, int from, int to, long pauseMs) throws Exception {
        for (int r = from; r <= to; r++) {
            out.write(put(r));
            out.flush();
            if (pauseMs > 0) Thread.sleep(pauseMs);
        }
    }

    /** A follow running in this JVM: its end, and its stderr as it is printed. */
    record Following(CompletableFuture<WalVerifyTest.Run> run, StringWriter err) {
        /** Waits until the follow has read the file as it stood (its line on stderr); fails at once if it ended. */
        Following started() {
            Await.printed("walverify --follow to begin", err, "walverify: following ", run);
            return this;
        }

        WalVerifyTest.Run get() throws Exception {
            return run.get(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /**
     * {@code walverify --follow} in this JVM. It ends when the file has not grown for 3 s; a record stays "in progress"
     * for 10 s before it is torn: a busy machine's pauses between two writes stay well under both.
     */
    Following follow(Path wal, String... more) {
        String[] args = new String[more.length + 5];
        args[0] = "--follow";
        args[1] = "--idle-exit";
        args[2] = "3";
        System.arraycopy(more, 0, args, 3, more.length);
        args[more.length + 3] = "--torn-after=10";
        args[more.length + 4] = wal.toString();
        StringWriter err = new StringWriter();
        return new Following(CompletableFuture.supplyAsync(() -> {
            StringWriter out = new StringWriter();
            int code = dev.walkit.cli.Cli.run(new WalVerify(), new PrintWriter(out), new PrintWriter(err), args);
            return new WalVerifyTest.Run(code, out.toString(), err.toString());
        }), err);
    }

    @Test
    void aRecordInProgressWaitsAndDamageIsToldAsItIsFound() throws Exception {
        Path wal = dir.resolve("wal");
        long damagedAt;
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            append(out, 1, 30, 0);
            Following run = follow(wal).started();
            append(out, 31, 60, 5);
            byte[] half = put(61);
            out.write(half, 0, half.length / 2); // a record in progress for 600 ms and more: well under --torn-after
            out.flush();
            Thread.sleep(600);
            out.write(half, half.length / 2, half.length - half.length / 2);
            out.flush();
            damagedAt = Files.size(wal);
            byte[] bad = put(62);
            bad[bad.length - 1] ^= 1; // its CRC
            out.write(bad);
            out.flush();
            append(out, 63, 80, 5);
            WalVerifyTest.Run r = run.get();
            assertEquals(3, r.exit(), r.out() + r.err());
            String firstLine = r.out().lines().findFirst().orElse("");
            assertTrue(firstLine.startsWith("crc-mismatch at offset " + String.format("%,d", damagedAt)), "told as found, before the report:\n" + r.out());
            assertTrue(r.out().contains("records 79, transactions 79, revisions 1..80"), r.out());
            assertTrue(!r.out().contains("torn-tail"), "the record in progress was not damage:\n" + r.out());
        }
    }

    @Test
    void aCompactionsRenameIsFollowedOn() throws Exception {
        Path wal = dir.resolve("wal");
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            append(out, 1, 40, 0);
        }
        Following run = follow(wal).started(); // revisions 1..40 read from the old file
        // The compaction: the live keys at revision 40 as a snapshot prefix, then what follows, renamed over the log.
        Path next = dir.resolve("wal.compact");
        try (WalWriter w = WalWriter.create(next)) {
            SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(w::append, 40, 20);
            java.util.List<Integer> revs = new java.util.ArrayList<>();
            for (int rev = 21; rev <= 40; rev++) revs.add(rev);
            revs.sort(java.util.Comparator.comparing(rev -> "cm-" + (rev % 20))); // the prefix's keys in byte order
            for (int rev : revs) {
                p.append(KeyValue.put(("/registry/configmaps/ns/cm-" + (rev % 20)).getBytes(StandardCharsets.US_ASCII), rev % 20 == 0 ? 20 : rev % 20, rev, 2,
                        ("{\"n\":" + rev + "}").getBytes(StandardCharsets.US_ASCII), 0));
            }
            p.end();
            for (int r = 41; r <= 50; r++) w.appendRaw(put(r));
            w.sync();
        }
        Files.move(next, wal, StandardCopyOption.ATOMIC_MOVE);
        try (FileOutputStream out = new FileOutputStream(wal.toFile(), true)) {
            append(out, 51, 60, 5);
        }
        WalVerifyTest.Run r = run.get();
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains(": replaced by another file (a compaction's rename); following the new file past revision "), r.out());
        assertTrue(r.out().contains("revisions 1..60"), r.out());
    }

    @Test
    void aSignalEndsTheFollowWithTheLogsExitCode() throws Exception {
        Path wal = dir.resolve("wal");
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            append(out, 1, 10, 0);
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
                "dev.walkit.verify.WalVerify", "--follow", wal.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        Await.contains("the follow to begin", dir.resolve("out"), "walverify: following ", p);
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        String out = Files.readString(dir.resolve("out"));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("records 10, transactions 10, revisions 1..10") && out.contains("verdict: healthy (exit 0)"), out);
    }

    @Test
    void withJsonTheReportIsOneDocument() throws Exception {
        Path wal = dir.resolve("wal");
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            append(out, 1, 10, 0);
            byte[] bad = put(11);
            bad[bad.length - 1] ^= 1;
            out.write(bad);
            append(out, 12, 14, 0);
        }
        WalVerifyTest.Run r = WalVerifyTest.run("--follow", "--idle-exit", "0.5", "-w", "json", wal.toString());
        assertEquals(3, r.exit(), r.out());
        assertEquals("damaged", r.json().get("verdict").asText(), r.out());
        assertEquals(1, r.json().get("damage").size(), r.out());
    }

    @Test
    void aFileThatIsNoWalIsRefusedInOneLine() throws Exception {
        Path db = dev.walkit.format.Fixtures.path("etcd/snapshot.db");
        WalVerifyTest.Run r = WalVerifyTest.run("--follow", "--idle-exit", "0.5", db.toString());
        assertEquals(4, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("walverify: " + db + ": not a WAL"), r.err());
    }
}
