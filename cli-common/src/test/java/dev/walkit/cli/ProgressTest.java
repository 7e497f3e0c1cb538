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
}
