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
        Path gen = dir.resolve("clean");
        new K8sWalGenerator(K8sWalGenerator.Options.of(3, 24 << 20)).write(gen);
        DamageInjector inj = new DamageInjector(Files.readAllBytes(gen));
        Path input = Files.write(dir.resolve("wal"), inj.apply(DamageInjector.Kind.CRC_MISMATCH, inj.recordCount() / 2, 1).log());
        Path reference = dir.resolve("reference");
        assertEquals(0, WalRecoverTest.run("--out", reference.toString(), input.toString()).exit());
        Map<String, String> want = WalRecoverTest.replayClean(reference.resolve("wal"));

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Random rnd = new Random(17);
        int completed = 0;
        int killed = 0;
        for (int i = 0; i < 8; i++) {
            Path out = dir.resolve("out" + i);
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WalRecover.class.getName(),
                    "--out", out.toString(), input.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean done = p.waitFor(100 + rnd.nextInt(1500), TimeUnit.MILLISECONDS);
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
}
