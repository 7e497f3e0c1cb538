package dev.walkit.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A command that runs until SIGINT or SIGTERM (a follow, tail -f's way) and then ends as it would have ended anyway:
 * the signal sets {@link #stopped}, the command's loop sees it, finishes its report, and calls {@link #done} with its
 * exit code, which the process then exits with (not the signal's 130 or 143). Without a signal, {@link #done} only
 * takes the hook away.
 */
public final class StopOnSignal implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile int exit = ExitCode.SOFTWARE.code();
    private final Thread hook;

    public StopOnSignal(String name) {
        hook = new Thread(() -> {
            stop.set(true);
            try {
                if (done.await(30, TimeUnit.SECONDS)) Runtime.getRuntime().halt(exit);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name + "-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether a signal asked the command to stop. */
    public boolean stopped() {
        return stop.get();
    }

    /** The command has ended with {@code code}: the process exits with it if a signal is ending it. */
    public int done(int code) {
        exit = code;
        return code;
    }

    @Override
    public void close() {
        done.countDown();
        if (!stop.get()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it exits with the code given to done
            }
        }
    }
}
