package dev.walkit.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Progress lines go to stderr only when stderr itself is a terminal: in a real pseudo-terminal (util-linux script). */
class StderrTerminalTest {
    @TempDir
    Path dir;

    /** Prints whether stderr is a terminal, as the tools decide it. */
    public static void main(String[] args) {
        System.out.println("stderr-terminal=" + Cli.stderrIsTerminal());
    }

    private String inTerminal(String redirect) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cmd = java + " -cp " + System.getProperty("java.class.path") + " " + StderrTerminalTest.class.getName() + redirect;
        Path out = dir.resolve("out");
        Process p = new ProcessBuilder("/usr/bin/script", "-qfec", cmd, "/dev/null").redirectOutput(out.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    @Test
    void onlyAStderrOnATerminalIsOne() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script is needed");
        assertTrue(inTerminal("").contains("stderr-terminal=true"), "all three on the terminal");
        assertTrue(inTerminal(" 2>" + dir.resolve("log")).contains("stderr-terminal=false"), "stderr to a file: 2>log");
        assertFalse(Cli.stderrIsTerminal(), "under the test runner, no console");
        assertEquals("", Files.readString(dir.resolve("log")));
    }
}
