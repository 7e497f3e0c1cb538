package dev.walkit.testdata;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Waiting in a test for what it needs to see (a line, a file, a port, a key), never for a fixed time: the machines that
 * run the suite are shared and busy, so a step that takes 50 ms on a quiet one may take seconds. Each wait has a
 * generous deadline ({@link #DEADLINE}, or {@code WALKIT_TEST_DEADLINE_SECONDS}) and, when it gives up, says what it
 * was waiting for and what it saw last.
 */
public final class Await {
    /** How long a wait may take before the test fails: long enough for a machine with every core busy. */
    public static final Duration DEADLINE = Duration.ofSeconds(Long.getLong("walkit.test.deadline",
            Long.parseLong(System.getenv().getOrDefault("WALKIT_TEST_DEADLINE_SECONDS", "180"))));

    private Await() {
    }

    /** A probe that may throw: its answer, or null (or false) while the state is not there yet. */
    @FunctionalInterface
    public interface Probe<T> {
        T look() throws Exception;
    }

    /**
     * Looks at {@code probe} until it answers (not null, not false) and returns the answer; fails after {@link #DEADLINE}
     * with "waited N s for WHAT" and {@code lastSeen}'s account of the state then.
     */
    public static <T> T until(String what, Probe<T> probe, Supplier<String> lastSeen) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        long pause = 5;
        Exception last = null;
        while (true) {
            try {
                T t = probe.look();
                if (t != null && !Boolean.FALSE.equals(t)) return t;
                last = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            } catch (Exception e) {
                last = e; // not there yet (a file not made, a port not open)
            }
            if (System.nanoTime() > deadline) {
                String seen = lastSeen == null ? "" : lastSeen.get();
                throw new AssertionError("waited " + DEADLINE.toSeconds() + " s for " + what
                        + (last != null ? "; last try: " + last : "") + (seen == null || seen.isEmpty() ? "" : "; saw:\n" + seen));
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
            pause = Math.min(100, pause * 2);
        }
    }

    /** {@link #until(String, Probe, Supplier)} with nothing more to say when it gives up. */
    public static <T> T until(String what, Probe<T> probe) {
        return until(what, probe, null);
    }

    /** Until {@code text} (as a process's or a command's output grows) contains {@code wanted}; returns the text then. */
    public static String contains(String what, Supplier<String> text, String wanted) {
        return until(what + " (\"" + wanted + "\")", () -> {
            String s = text.get();
            return s != null && s.contains(wanted) ? s : null;
        }, text);
    }

    /** Until {@code writer} (a command's stdout or stderr, written by another thread) contains {@code wanted}. */
    public static String contains(String what, StringWriter writer, String wanted) {
        return contains(what, writer::toString, wanted);
    }

    /**
     * Until the file {@code out} (a process's redirected output) contains {@code wanted}; fails at once, with what it
     * printed, when {@code process} ends before that.
     */
    public static String contains(String what, Path out, String wanted, Process process) {
        return until(what + " (\"" + wanted + "\" in " + out.getFileName() + ")", () -> {
            String s = read(out);
            if (s.contains(wanted)) return s;
            if (process != null && !process.isAlive() && !read(out).contains(wanted)) {
                throw new AssertionError(what + ": the process ended (exit " + process.exitValue() + ") before printing \"" + wanted + "\":\n" + read(out));
            }
            return null;
        }, () -> read(out));
    }

    /**
     * Until {@code printed} (a command's output, written by the thread that runs it as {@code run}) contains
     * {@code wanted}; fails at once, with what it printed, when the command ended first.
     */
    public static String printed(String what, StringWriter printed, String wanted, java.util.concurrent.Future<?> run) {
        return until(what + " (\"" + wanted + "\")", () -> {
            String s = printed.toString();
            if (s.contains(wanted)) return s;
            if (run.isDone()) throw new AssertionError(what + ": the command ended before printing \"" + wanted + "\": " + s + " " + Await.now(run::get));
            return null;
        }, printed::toString);
    }

    /** The text of {@code file}; empty while it does not exist. */
    public static String read(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What {@code probe} sees now, as text (for a wait's last-seen account): its answer, or the exception it threw. */
    public static String now(Probe<?> probe) {
        try {
            return String.valueOf(probe.look());
        } catch (Exception e) {
            return e.toString();
        }
    }
}
