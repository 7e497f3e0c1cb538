package dev.walkit.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A bug surfaces as one line and exit 70, whether a command throws under picocli or a plain path reports it. */
class InternalErrorTest {
    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new IllegalStateException("it broke");
        }
    }

    @Test
    void oneLineAndExitSeventy() {
        StringWriter err = new StringWriter();
        assertEquals(70, Cli.run(new Boom(), new PrintWriter(new StringWriter()), new PrintWriter(err)));
        assertEquals("boom: internal error: java.lang.IllegalStateException: it broke\n", err.toString());
        StringWriter plain = new StringWriter();
        assertEquals(70, Cli.internalError("kine", new IllegalStateException("it broke"), new PrintWriter(plain)));
        assertEquals("kine: internal error: java.lang.IllegalStateException: it broke\n", plain.toString());
    }
}
