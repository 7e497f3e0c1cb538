package dev.walkit.recover;

import dev.walkit.format.Fixtures;
import dev.walkit.testdata.FileCallTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A walrecover killed after its last rename, before it removed its intent file (strace kills it at that unlink): its
 * pair is complete and verified. The next run into DIR finishes that switch instead of undoing it, so the pair is
 * never deleted: the same command run again says so, and writes its output over that run's own, keeping it as
 * wal.broken.* and leases.json.broken.* (exit 0). (Before: the rerun refused "wal exists" with the intent file still
 * there, and a --force run undid the switch, deleting the complete pair.)
 */
class RerunAfterCrashTest {
    @TempDir
    Path dir;

    static List<String> names(Path d) throws Exception {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aRunKilledAfterItsLastRenameIsFinishedByTheNextNeverUndone() throws Exception {
        String why = FileCallTrace.unavailable();
        assumeTrue(why == null, why);
        Path in = Fixtures.path("vectors/small/wal");
        Path d = dir.resolve("D");
        List<String> cmd = new ArrayList<>(List.of("strace", "-f", "-qq", "-o", "/dev/null", "-P", d.resolve(".walkit.switch").toString(),
                "-e", "trace=unlink", "-e", "inject=unlink:signal=KILL"));
        cmd.addAll(WalRecoverTest.process(in, d, false));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("killed.log").toFile()).start();
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertTrue(p.exitValue() != 0, "killed: " + Files.readString(dir.resolve("killed.log")));
        assertTrue(names(d).containsAll(List.of(".walkit.switch", "leases.json", "wal")), names(d).toString());
        byte[] wal = Files.readAllBytes(d.resolve("wal"));
        byte[] leases = Files.readAllBytes(d.resolve("leases.json"));

        // The same command again: it finishes the switch (the pair was complete), then writes its own output over that
        // run's, keeping it as wal.broken.* and leases.json.broken.*: nothing deleted, exit 0.
        WalRecoverTest.Run again = WalRecoverTest.run("--out", d.toString(), in.toString());
        assertEquals(0, again.exit(), again.out() + again.err());
        assertTrue(again.out().contains("an earlier run had put its new leases.json and wal in place and stopped before it said so: its switch is finished"),
                again.out());
        List<String> after = names(d);
        String brokenWal = after.stream().filter(n -> n.startsWith("wal.broken.")).findFirst().orElseThrow(() -> new AssertionError(after.toString()));
        String brokenLeases = after.stream().filter(n -> n.startsWith("leases.json.broken.")).findFirst().orElseThrow(() -> new AssertionError(after.toString()));
        assertTrue(Arrays.equals(wal, Files.readAllBytes(d.resolve(brokenWal))), "the earlier complete wal is kept, not deleted");
        assertTrue(Arrays.equals(leases, Files.readAllBytes(d.resolve(brokenLeases))));
        assertTrue(Arrays.equals(wal, Files.readAllBytes(d.resolve("wal"))), "the same command writes the same output");
        assertFalse(after.contains(".walkit.switch") || after.contains(".walkit.lock"), after.toString());
        // Anything else in DIR is still never written over without --force.
        WalRecoverTest.Run third = WalRecoverTest.run("--out", d.toString(), in.toString());
        assertEquals(2, third.exit(), third.out() + third.err());
    }
}
