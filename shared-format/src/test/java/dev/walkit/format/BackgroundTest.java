package dev.walkit.format;

import dev.walkit.format.scan.Background;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A task on its own daemon thread; the wait for it gives its result, or its own failure. */
class BackgroundTest {
    @Test
    void theResultComesFromANamedDaemonThread() throws Exception {
        var where = Background.start("bg-test", () -> List.of(Thread.currentThread().getName(), Thread.currentThread().isDaemon()));
        assertEquals(List.of("bg-test", true), Background.join(where, "the test task"));
    }

    @Test
    void anIoFailureIsThrownAsItWas() {
        IOException cause = new IOException("disk gone");
        var task = Background.start("bg-test", () -> {
            throw new UncheckedIOException(cause);
        });
        assertSame(cause, assertThrows(IOException.class, () -> Background.join(task, "the test task")));
    }

    @Test
    void aRuntimeFailureIsRethrown() {
        IllegalStateException cause = new IllegalStateException("bug");
        var task = Background.start("bg-test", () -> {
            throw cause;
        });
        assertSame(cause, assertThrows(IllegalStateException.class, () -> Background.join(task, "the test task")));
    }
}
