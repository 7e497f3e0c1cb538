package dev.walkit.recover;

import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real CLI in its own process, killed with SIGKILL at random moments: the output directory holds
 * either no wal or a complete one that replays cleanly to the expected state.
 */
class KillTest {
    @TempDir
    Path dir;

    @Test
    void killNineLeavesNoWalOrAVerifiedOne() throws Exception {
        DamageInjector inj = new DamageInjector(new K8sWalGenerator(K8sWalGenerator.Options.of(3, 24 << 20)).bytes());
        Path input = Files.write(dir.resolve("wal"), inj.apply(DamageInjector.Kind.CRC_MISMATCH, inj.recordCount() / 2, 1).log());
        Path reference = dir.resolve("reference");
        assertEquals(0, WalRecoverTest.run("--out", reference.toString(), input.toString()).exit());
        Map<String, String> want = WalRecoverTest.replayClean(reference.resolve("wal"));

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Random rnd = new Random(17);
        // How long a whole run takes here (start-up included): the kills fall at random moments within it,
        // whatever the machine's speed.
        long t0 = System.nanoTime();
        Process whole = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WalRecover.class.getName(),
                "--out", dir.resolve("timed").toString(), input.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals(0, whole.waitFor());
        int runMillis = (int) Math.max(50, (System.nanoTime() - t0) / 1_000_000);
        int completed = 0;
        int killed = 0;
        for (int i = 0; i < 8; i++) {
            Path out = dir.resolve("out" + i);
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WalRecover.class.getName(),
                    "--out", out.toString(), input.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean done = p.waitFor(rnd.nextInt(runMillis), TimeUnit.MILLISECONDS);
            if (!done) {
                p.destroyForcibly(); // SIGKILL
                p.waitFor();
                killed++;
            } else {
                assertEquals(0, p.exitValue());
                completed++;
            }
            Path wal = out.resolve("wal");
            if (Files.exists(wal)) {
                assertEquals(want, WalRecoverTest.replayClean(wal), "run " + i + ": a wal that exists is complete");
                assertTrue(Files.exists(out.resolve("leases.json")), "leases.json is published before the wal");
            }
            if (Files.exists(out)) {
                try (var s = Files.list(out)) {
                    List<String> names = s.map(x -> x.getFileName().toString()).toList();
                    assertTrue(names.stream().allMatch(n -> n.equals("wal") || n.equals("leases.json") || n.startsWith(".")), names.toString());
                }
            }
        }
        assertTrue(killed > 0, "some runs were killed (completed " + completed + ")");
    }

    @Test
    void sigtermLeavesNoTempFileBehind() throws Exception {
        Path input = dir.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(4, 48 << 20)).write(input);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        int stoppedWhileWriting = 0;
        for (int i = 0; i < 4 && stoppedWhileWriting < 2; i++) {
            Path out = Files.createDirectories(dir.resolve("term" + i));
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WalRecover.class.getName(),
                    "--out", out.toString(), input.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            // Wait until the temp file is there and growing, then SIGTERM, as Ctrl-C or timeout(1) would.
            long deadline = System.nanoTime() + dev.walkit.testdata.Await.DEADLINE.toNanos();
            boolean seen = false;
            while (!seen && p.isAlive() && System.nanoTime() < deadline) {
                try (var s = Files.list(out)) {
                    seen = s.anyMatch(x -> x.getFileName().toString().startsWith(".wal.tmp-") && x.toFile().length() > (1 << 20));
                }
                if (!seen) Thread.sleep(2);
            }
            if (!seen || !p.isAlive()) {
                p.waitFor();
                continue; // finished first: try again
            }
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
            stoppedWhileWriting++;
            try (var s = Files.list(out)) {
                List<String> names = s.map(x -> x.getFileName().toString()).toList();
                assertTrue(names.stream().noneMatch(n -> n.contains(".tmp-")), "no temp file left: " + names);
            }
        }
        assertTrue(stoppedWhileWriting > 0, "some runs were stopped while writing");
    }
}
