package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** End to end in a pseudo-terminal (util-linux {@code script}): the real main, jline on a real tty. */
class PtyTest {
    @Test
    void shellOnATerminal() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script is needed");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cmd = java + " -cp " + System.getProperty("java.class.path") + " " + WalDoctor.class.getName() + " shell "
                + Fixtures.path("vectors/small/wal");
        Process p = new ProcessBuilder("/usr/bin/script", "-qfec", cmd, "/dev/null").redirectErrorStream(true).start();
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try {
                p.getInputStream().transferTo(captured);
            } catch (java.io.IOException e) {
                // the stream closes when the process ends
            }
        });
        reader.start();
        try (OutputStream in = p.getOutputStream()) {
            Thread.sleep(2500);
            in.write("range /registry/le\t --keys-only --limit 1\r".getBytes(StandardCharsets.UTF_8));
            in.flush();
            Thread.sleep(500);
            in.write("get /registry/configmaps/ns0/cm-0\r".getBytes(StandardCharsets.UTF_8));
            in.flush();
            Thread.sleep(500);
            in.write(4); // Ctrl-D
            in.flush();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the shell exits on Ctrl-D");
        } catch (java.io.IOException e) {
            // the process ended early: its output says why
        } finally {
            p.destroyForcibly();
            reader.join(5000);
        }
        String out;
        synchronized (captured) {
            out = captured.toString(StandardCharsets.UTF_8);
        }
        assertTrue(out.contains("waldoctor shell: "), out);
        assertTrue(out.contains("/registry/leases/kube-node-lease/"), "Tab completed the segment: " + out);
        assertTrue(out.contains("mod_revision: 203"), out);
    }
}
