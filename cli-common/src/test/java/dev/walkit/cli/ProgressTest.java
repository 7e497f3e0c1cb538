package dev.walkit.cli;

import me.tongfei.progressbar.ProgressBar;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest {
    @Test
    void nothingIsDrawnOffATerminalForJsonOrForASmallFile() {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            for (Progress p : new Progress[] {Progress.of("x", 1L << 30, true), Progress.of("x", 1L << 30, false), Progress.of("x", Progress.THRESHOLD, true)}) {
                try (p) {
                    for (long b = 0; b < (1L << 30); b += 1 << 20) p.accept(b);
                }
            }
        } finally {
            System.setErr(saved);
        }
        assertEquals("", err.toString(StandardCharsets.UTF_8), "under the test runner stderr is no terminal");
    }

    @Test
    void theBarSaysDoneOfTotalPercentageAndTimeLeft() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ProgressBar bar = Progress.bar("loading", 2048L << 20, new PrintStream(out, true, StandardCharsets.UTF_8))) {
            bar.stepTo(512);
            Thread.sleep(450);
        }
        String s = out.toString(StandardCharsets.UTF_8);
        assertTrue(s.contains("loading") && s.contains("25%") && s.contains("512/2048 MiB"), s);
        assertTrue(s.matches("(?s).*\\(\\d+:\\d\\d:\\d\\d / \\d+:\\d\\d:\\d\\d\\).*"), "elapsed / time left: " + s);
    }

    @Test
    void readsFromTwoThreadsAddUpAndStopAtTheTotal() throws Exception {
        try (Progress p = Progress.to("verifying", 256L << 20, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
            java.util.function.LongConsumer read = p.adder();
            Thread a = new Thread(() -> {
                for (int i = 0; i < 64; i++) read.accept(1 << 20);
            });
            Thread b = new Thread(() -> {
                for (int i = 0; i < 64; i++) read.accept(1 << 20);
            });
            a.start();
            b.start();
            a.join();
            b.join();
            assertEquals(128, p.shownMiB(), "the two halves' reads add up");
            for (int i = 0; i < 300; i++) read.accept(1 << 20); // a second pass
            assertEquals(256, p.shownMiB(), "never past the total");
        }
        assertEquals(null, Progress.of("x", 1L << 30, true).adder(), "nothing to count off a terminal");
    }
}
