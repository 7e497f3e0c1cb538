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
            CompletableFuture<WalDoctorTest.Run> run = CompletableFuture.supplyAsync(() ->
                    WalDoctorTest.run("records", wal.toString(), "--follow", "--idle-exit", "1"));
            Thread.sleep(400);
            for (int r = 6; r <= 8; r++) {
                out.write(put(r));
                out.flush();
                Thread.sleep(50);
            }
            WalDoctorTest.Run r = run.get(20, TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.err());
            String[] lines = r.out().strip().split("\n");
            assertEquals("(following " + wal + " from offset " + before + "; ^C to stop)", lines[0]);
            assertEquals(4, lines.length, r.out());
            assertTrue(lines[1].startsWith(String.format("@%-10d", before)) && lines[1].contains("rev 6 ") && lines[1].endsWith("/registry/configmaps/ns/cm-6"), lines[1]);
            assertTrue(lines[3].contains("rev 8 "), lines[3]);
        }
    }
}
