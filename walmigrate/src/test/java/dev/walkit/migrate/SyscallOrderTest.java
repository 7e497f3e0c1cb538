package dev.walkit.migrate;

import dev.walkit.testdata.FileCallTrace;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code walmigrate kine --out-wal DIR}'s file calls under strace: the wal fsynced before its rename, DIR (and its parent, which gained DIR) after. */
class SyscallOrderTest {
    @TempDir
    Path dir;

    @Test
    void theOfflineWalIsPublishedDurably() throws Exception {
        String why = FileCallTrace.unavailable();
        assumeTrue(why == null, why);
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(4, 3000)).write(db);
        Path out = dir.resolve("made/out");
        FileCallTrace t = FileCallTrace.run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), WalMigrate.class.getName(), "kine", "--sqlite", db.toString(), "--out-wal", out.toString()),
                dir.resolve("trace"));
        assertEquals(3, t.assertDurablePublish(out, List.of("leases.json", "wal")), "the intent file, leases.json, wal");
    }
}
