package dev.walkit.runbooks;

import dev.walkit.doctor.WalDoctor;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Standard output that cannot be written, as a shell sets it up: a reader that stops reading ({@code | head}) leaves
 * the exit code of what was read (the tool's own, not 4); a full disk is exit 4, one line naming where the output went
 * and why.
 */
class ClosedPipeTest {
    @TempDir
    Path dir;

    record Ran(int exit, String err) {
    }

    Ran shell(String script) throws Exception {
        Path err = dir.resolve("err-" + System.nanoTime());
        Process p = new ProcessBuilder("bash", "-c", script).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), script);
        return new Ran(p.exitValue(), Files.readString(err));
    }

    String waldoctor() {
        return String.join(" ", List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
                WalDoctor.class.getName()));
    }

    @Test
    void aReaderThatStopsReadingLeavesTheCodeOfWhatWasRead() throws Exception {
        Path wal = dir.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 8 << 20)).write(wal); // megabytes of keys: far more than a pipe holds
        Ran r = shell(waldoctor() + " range " + wal + " /registry/ --limit 0 | head -1 >/dev/null; exit ${PIPESTATUS[0]}");
        assertEquals(0, r.exit(), "the range's own code, not 4: " + r.err());
        assertTrue(!r.err().contains("could not be written"), r.err());
    }

    @Test
    void aFullDiskIsExitFourNamingWhereTheOutputWent() throws Exception {
        Path wal = dir.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 1 << 20)).write(wal);
        Ran r = shell(waldoctor() + " range " + wal + " /registry/ --limit 0 >/dev/full");
        assertEquals(4, r.exit(), r.err());
        assertEquals("waldoctor: standard output (/dev/full) could not be written: No space left on device: the output is incomplete",
                r.err().strip());
    }
}
