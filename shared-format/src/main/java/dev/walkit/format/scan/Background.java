package dev.walkit.format.scan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Work on a thread of its own beside the caller's (the second half of a log, a digest, an fsync, a
 * connection), and the caller's wait for it with the task's own failure: an I/O error thrown as it
 * was (tasks wrap it in {@link UncheckedIOException}), a runtime error rethrown.
 */
public final class Background {
    private Background() {
    }

    /** Runs {@code task} on a new daemon thread called {@code name}. */
    public static <T> CompletableFuture<T> start(String name, Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, runnable -> {
            Thread t = new Thread(runnable, name);
            t.setDaemon(true);
            t.start();
        });
    }

    /** The task's result; {@code what} names it in the message when the wait is interrupted or it failed otherwise. */
    public static <T> T join(CompletableFuture<T> task, String what) throws IOException {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UncheckedIOException u) throw u.getCause();
            if (cause instanceof IOException io) throw io;
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new IOException(what + " failed: " + cause, cause);
        }
    }
}
