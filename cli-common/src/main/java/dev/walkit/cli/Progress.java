package dev.walkit.cli;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
import java.util.function.LongConsumer;

/**
 * Progress through a file on the operator's terminal: bytes done of the total, the percentage, the rate and
 * the time left (me.tongfei's progressbar, drawn on a thread of its own), and nothing at all in a pipe, a
 * JSON run, or for a file of 64 MiB or less. The line is cleared when done, so what follows starts clean.
 */
public final class Progress implements LongConsumer, AutoCloseable {
    /** Files up to this size are read too fast to need it. */
    public static final long THRESHOLD = 64L << 20;
    private static final Progress NONE = new Progress(null);

    private final ProgressBar bar;
    private long shownMiB = -1;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /** A bar for {@code task} over {@code totalBytes}, when {@code wanted} (a human format), stderr is a terminal and the file is large. */
    public static Progress of(String task, long totalBytes, boolean wanted) {
        if (!wanted || totalBytes <= THRESHOLD || !Cli.stderrIsTerminal()) return NONE;
        return new Progress(bar(task, totalBytes, System.err));
    }

    /** A bar drawn on {@code to}, whatever it is (for tests). */
    static Progress to(String task, long totalBytes, PrintStream to) {
        return new Progress(bar(task, totalBytes, to));
    }

    /** Where the bar stands, in MiB (for tests). */
    long shownMiB() {
        return bar == null ? 0 : bar.getCurrent();
    }

    static ProgressBar bar(String task, long totalBytes, PrintStream to) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(totalBytes >> 20).setUnit(" MiB", 1).showSpeed()
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(200).setMaxRenderedLength(100)
                .setConsumer(new ConsoleProgressBarConsumer(to)).clearDisplayOnFinish().build();
    }

    /** Bytes done so far (cheap: the bar moves when a MiB is crossed). */
    @Override
    public void accept(long bytesDone) {
        if (bar == null) return;
        long mib = bytesDone >> 20;
        if (mib != shownMiB) {
            shownMiB = mib;
            bar.stepTo(mib);
        }
    }

    /**
     * A count of bytes read, from any thread (a scan on two cores reads two halves): the bar shows their sum, at
     * most the total (a second pass over a damaged log reads again).
     */
    public java.util.function.LongConsumer adder() {
        if (bar == null) return null;
        java.util.concurrent.atomic.AtomicLong sum = new java.util.concurrent.atomic.AtomicLong();
        long max = bar.getMax() << 20;
        return n -> {
            long s = sum.addAndGet(n);
            synchronized (this) {
                accept(Math.min(s, max));
            }
        };
    }

    @Override
    public void close() {
        if (bar != null) bar.close();
    }
}
