package dev.walkit.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What FastStart answers, and what it leaves to picocli (-1). Help texts here are test resources. */
class FastStartTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private int answer(boolean ansi, String... args) {
        return FastStart.answer("demo", args, out, ansi);
    }

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionAloneIsAnswered() {
        assertEquals(0, answer(false, "--version"));
        assertEquals("demo dev (walkit, WAL format v2; reads v1)" + System.lineSeparator(), printed());
        bytes.reset();
        assertEquals(0, answer(false, "-V"));
        assertEquals(FastStart.versionLine("demo") + System.lineSeparator(), printed());
    }

    @Test
    void helpOfTheToolAndOfASubcommandComeFromTheirText() {
        assertEquals(0, answer(false, "--help"));
        assertEquals("Usage: demo [-hV]\n", printed());
        bytes.reset();
        assertEquals(0, answer(false, "sub", "-h"));
        assertEquals("Usage: demo sub\n", printed());
    }

    @Test
    void colourPicksTheAnsiText() {
        assertEquals(0, answer(true, "-h"));
        assertEquals("\033[1mUsage\033[0m: demo\n", printed());
    }

    @Test
    void everythingElseIsLeftToPicocli() {
        assertEquals(-1, answer(false));
        assertEquals(-1, answer(false, "--version", "x"));              // version with more args: picocli decides
        assertEquals(-1, answer(false, "wal", "--help"));               // no text for demo-wal
        assertEquals(-1, answer(false, "--json", "--help"));            // an option before --help
        assertEquals(-1, answer(false, "../etc", "--help"));            // never a path into the resources
        assertEquals(-1, answer(false, "path/wal"));
        assertEquals(-1, answer(true, "sub", "--help"));                // no coloured text for demo-sub
        assertEquals("", printed());
    }
}
