package dev.walkit.recover;

import dev.walkit.testdata.FileCallTrace;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What LazyFS does not simulate (a lost rename or directory entry), checked in the calls walrecover makes, as
 * strace records them: data fsynced before its rename, the directory fsynced after each change, leases.json
 * renamed into place before the wal.
 */
class SyscallOrderTest {
    @TempDir
    static Path dir;
    static Path input;

    @BeforeAll
    static void strace() throws Exception {
        String why = FileCallTrace.unavailable();
        assumeTrue(why == null, why);
        input = dir.resolve("input.wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(6, 2 << 20)).write(input);
    }

    static List<String> command(Path out, boolean force) {
        return WalRecoverTest.process(input, out, force);
    }

    @Test
    void intoAFreshDirThatItMakes() throws Exception {
        Path out = dir.resolve("parent/fresh");
        FileCallTrace t = FileCallTrace.run(command(out, false), dir.resolve("fresh.trace"));
        assertEquals(3, t.assertDurablePublish(out, List.of("leases.json", "wal")), "the intent file, leases.json, wal");
    }

    @Test
    void overAnExistingPair() throws Exception {
        Path out = dir.resolve("over");
        assertEquals(0, WalRecoverTest.run("--out", out.toString(), input.toString()).exit());
        FileCallTrace t = FileCallTrace.run(command(out, true), dir.resolve("over.trace"));
        assertEquals(5, t.assertDurablePublish(out, List.of("leases.json", "wal")), "the intent file, the old pair aside, the new pair in");
    }

    @Test
    void theCheckCatchesARenameWithoutFsync() throws Exception {
        // The control: a shell's cp and mv, no fsync anywhere.
        Path out = Files.createDirectories(dir.resolve("control"));
        FileCallTrace t = FileCallTrace.run(List.of("sh", "-c", "cp \"$1\" \"$2/.wal.tmp-1-1\" && mv \"$2/.wal.tmp-1-1\" \"$2/wal\"", "sh",
                input.toString(), out.toString()), dir.resolve("control.trace"));
        AssertionError e = assertThrows(AssertionError.class, () -> t.assertDurablePublish(out, List.of("wal")));
        assertTrue(e.getMessage().contains("without an fsync after its last write"), e.getMessage());
    }
}
