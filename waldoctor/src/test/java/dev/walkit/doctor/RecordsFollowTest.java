package dev.walkit.doctor;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code waldoctor records PATH --follow}: the records appended while it runs, in {@code records}' lines, and only those. */
class RecordsFollowTest {
    @TempDir
    Path dir;

    static byte[] put(int rev) {
        return new RecordEncoder().encode(KeyValue.put(("/registry/configmaps/ns/cm-" + rev).getBytes(StandardCharsets.US_ASCII), rev, rev, 1,
                "{}".getBytes(StandardCharsets.US_ASCII), 0));
    }

    @Test
    void theRecordsAppendedWhileItRunsAreListedAsTheyCome() throws Exception {
        Path wal = dir.resolve("wal");
        long before;
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            for (int r = 1; r <= 5; r++) out.write(put(r));
            out.flush();
            before = wal.toFile().length();
            java.io.StringWriter printed = new java.io.StringWriter();
            CompletableFuture<WalDoctorTest.Run> run = CompletableFuture.supplyAsync(() -> {
                java.io.StringWriter err = new java.io.StringWriter();
                int code = WalDoctor.run(new java.io.PrintWriter(printed), new java.io.PrintWriter(err), "records", wal.toString(), "--follow", "--idle-exit", "3");
                return new WalDoctorTest.Run(code, printed.toString(), err.toString());
            });
            // Its first line says from which offset it follows: the records written after it are the ones listed.
            dev.walkit.testdata.Await.until("records --follow to begin (\"(following \")", () -> printed.toString().contains("(following ") || run.isDone(),
                    printed::toString);
            for (int r = 6; r <= 8; r++) {
                out.write(put(r));
                out.flush();
            }
            WalDoctorTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.err());
            String[] lines = r.out().strip().split("\n");
            assertEquals("(following " + wal + " from offset " + before + "; ^C to stop)", lines[0]);
            assertEquals(4, lines.length, r.out());
            assertTrue(lines[1].startsWith(String.format("@%-10d", before)) && lines[1].contains("rev 6 ") && lines[1].endsWith("/registry/configmaps/ns/cm-6"), lines[1]);
            assertTrue(lines[3].contains("rev 8 "), lines[3]);
        }
    }
}
