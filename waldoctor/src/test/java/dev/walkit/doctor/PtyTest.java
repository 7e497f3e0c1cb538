package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import dev.walkit.testdata.Await;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** End to end in a pseudo-terminal (util-linux {@code script}): the real main, jline on a real tty. */
class PtyTest {
    @org.junit.jupiter.api.io.TempDir
    Path dir;

    /**
     * Reads a process's output on a thread of its own, which can stop reading where a marker appears: the terminal's
     * buffers then fill and the shell's writes wait, the command still running, until it is let go.
     */
    private static final class Reader extends Thread {
        final java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        final java.io.InputStream in;
        /** Stop reading once this is on the screen at or after {@link #holdFrom} (null: never); {@link #release} goes on. */
        private String holdAt;
        private int holdFrom;
        private boolean held;

        Reader(java.io.InputStream in) {
            this.in = in;
            start();
        }

        @Override
        public void run() {
            byte[] b = new byte[4096];
            try {
                for (int n; (n = in.read(b)) >= 0; ) {
                    synchronized (captured) {
                        captured.write(b, 0, n);
                        // Held right here, in the read that showed the marker: no output is drained after it.
                        if (holdAt != null && captured.toString(StandardCharsets.UTF_8).indexOf(holdAt, holdFrom) >= 0) {
                            held = true;
                            holdAt = null;
                        }
                        while (held) captured.wait();
                    }
                }
            } catch (java.io.IOException | InterruptedException e) {
                // the stream closes when the process ends
            }
        }

        /** Stops reading once {@code marker} appears at or after {@code from}. */
        void holdAt(String marker, int from) {
            synchronized (captured) {
                holdAt = marker;
                holdFrom = from;
            }
        }

        /** Reads on. */
        void release() {
            synchronized (captured) {
                held = false;
                captured.notifyAll();
            }
        }

        String text() {
            synchronized (captured) {
                return captured.toString(StandardCharsets.UTF_8);
            }
        }

        /** Waits until {@code wanted} is on the screen at or after {@code from}; returns where it ends. */
        int await(String what, String wanted, int from) {
            return dev.walkit.testdata.Await.until(what + " (\"" + wanted + "\" on the terminal)", () -> {
                int i = text().indexOf(wanted, from);
                return i < 0 ? null : i + wanted.length();
            }, () -> tail(text()).replace("\u001b", "ESC"));
        }
    }

    /**
     * The line reader waits for a line: jline turns bracketed paste on as each readLine begins (the prompt itself is
     * drawn for a terminal of 0 columns here, cut to "&gt;…").
     */
    private static final String READING = "\u001b[?2004h";

    private static String tail(String s) {
        return s.substring(Math.max(0, s.length() - 1500));
    }

    private static void type(OutputStream in, String s) throws java.io.IOException {
        in.write(s.getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    @Test
    void ctrlCStopsTheRunningCommandAndTheSessionGoesOn() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script is needed");
        Path wal = dir.resolve("wal");
        new dev.walkit.testdata.K8sWalGenerator(dev.walkit.testdata.K8sWalGenerator.Options.of(11, 48 << 20)).write(wal);
        // A home that cannot take the history: one line at start, then the session as usual.
        Path home = Files.writeString(dir.resolve("home"), "a file, not a directory");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // exec: no shell stays between script(1) and the JVM; a dash (script's shell when SHELL is unset) that
        // waits on the JVM gets the Ctrl-C too and exits 130 though the JVM handled it.
        // SIGINT's default restored first (perl-base, in every Debian): a test run started in the background (nohup,
        // 'cmd &' in a script) passes SIGINT on as ignored, through script(1) and exec, and the JVM then never sees it.
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/perl")), "perl is needed");
        String cmd = "exec /usr/bin/perl -e '$SIG{INT} = \"DEFAULT\"; exec @ARGV or die' env HOME=" + home + " XDG_STATE_HOME= " + java + " -cp " + System.getProperty("java.class.path") + " "
                + WalDoctor.class.getName() + " shell " + wal;
        Process p = new ProcessBuilder("/usr/bin/script", "-qfec", cmd, "/dev/null").redirectErrorStream(true).start();
        Reader r = new Reader(p.getInputStream());
        try (OutputStream in = p.getOutputStream()) {
            r.await("the prompt", READING, 0);
            // Every live key with its value's summary: megabytes. The reader stops at the range's first keys: the
            // output fills the terminal's buffers and the command waits on them, still running when Ctrl-C comes; then
            // the reader goes on and the command, let write again, sees the interrupt.
            int at = r.text().length();
            r.holdAt("\n/registry/", at);
            type(in, "range /registry/ --limit 0\r");
            r.await("the range's first keys", "\n/registry/", at);
            type(in, "\u0003");
            r.release();
            int ctrlC = r.await("the range interrupted", "^C: interrupted", at);
            type(in, "stats\r");
            int stats = r.await("the stats after the interrupt", "transactions", ctrlC);
            r.await("the prompt after stats", READING, stats);
            // Tab on thousands of events: only what every key there shares is inserted (pod-), not pod-0.… of the first 500.
            // The line reader takes the keys in order: Tab's completion is made before Enter is read.
            type(in, "get /registry/events/default/\t");
            type(in, "\r");
            r.await("the get's answer", "key not found", stats);
            in.write(4); // Ctrl-D
            in.flush();
            assertTrue(p.waitFor(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "the shell exits on Ctrl-D: " + tail(r.text()));
            assertEquals(0, p.exitValue(), () -> "exit " + p.exitValue() + ": " + tail(r.text()));
        } finally {
            p.destroyForcibly();
            r.join(5000);
        }
        String out = r.text();
        assertTrue(out.contains("^C: interrupted"), "Ctrl-C stopped the range: " + out.substring(Math.max(0, out.length() - 2000)));
        assertTrue(out.substring(out.indexOf("^C: interrupted")).contains("transactions"), "the next command was answered: " + out.substring(out.indexOf("^C: interrupted")));
        assertTrue(!out.contains(" key(s)\r\n") || out.indexOf(" key(s)") > out.indexOf("^C"), "the range did not run to its end");
        int warn = out.indexOf("waldoctor: the shell's history is not kept: " + home);
        assertTrue(warn >= 0 && out.indexOf("history is not kept", warn + 60) < 0, "one warning line about the history: " + out.substring(0, Math.min(out.length(), 600)));
        assertTrue(!out.contains("Exception"), "no stack trace");
        assertTrue(out.matches("(?s).*error: key not found: /registry/events/default/pod-[\r\n].*"), "Tab inserted the common prefix only: "
                + out.substring(Math.max(0, out.length() - 800)));
    }

    @Test
    void shellOnATerminal() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script is needed");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cmd = "exec " + java + " -cp " + System.getProperty("java.class.path") + " " + WalDoctor.class.getName() + " shell "
                + Fixtures.path("vectors/small/wal");
        Process p = new ProcessBuilder("/usr/bin/script", "-qfec", cmd, "/dev/null").redirectErrorStream(true).start();
        Reader r = new Reader(p.getInputStream());
        try (OutputStream in = p.getOutputStream()) {
            int prompt = r.await("the prompt", READING, 0);
            type(in, "range /registry/le\t --keys-only --limit 1\r");
            int range = r.await("the range's key", "/registry/leases/kube-node-lease/", prompt);
            r.await("the prompt after the range", READING, range);
            type(in, "get /registry/configmaps/ns0/cm-0\r");
            int get = r.await("the get's answer", "mod_revision: 203", range);
            r.await("the prompt after the get", READING, get);
            type(in, "\\q\r"); // psql's quit, typed at the prompt: the backslash reaches the shell
            assertTrue(p.waitFor(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "the shell exits on \\q: " + tail(r.text()));
            assertEquals(0, p.exitValue(), tail(r.text()));
        } finally {
            p.destroyForcibly();
            r.join(5000);
        }
        String out = r.text();
        assertTrue(out.contains("waldoctor shell: "), out);
        assertTrue(out.contains("/registry/leases/kube-node-lease/"), "Tab completed the segment: " + out);
        assertTrue(out.contains("mod_revision: 203"), out);
    }
}
