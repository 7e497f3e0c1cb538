package dev.walkit.testdata;

import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testdata/fixtures/README.md's command for the Quick start's sample runs as it is written and makes the file there,
 * byte for byte (its --out's directory made when missing).
 */
class FixturesReadmeTest {
    @TempDir
    Path dir;

    @Test
    void theSamplesGenerateCommandMakesTheSampleByteForByte() throws Exception {
        String readme = Files.readString(Fixtures.root().resolve("testdata/fixtures/README.md"));
        Matcher m = Pattern.compile("dev\\.walkit\\.testdata\\.Generate ([^`]*)`").matcher(readme);
        assertTrue(m.find(), "the README names the generator's command");
        List<String> args = new ArrayList<>(Arrays.asList(m.group(1).trim().split("\\s+")));
        int out = args.indexOf("--out");
        assertEquals("testdata/fixtures/sample/wal", args.get(out + 1));
        Path made = dir.resolve("not-yet/sample/wal");
        args.set(out + 1, made.toString());
        assertEquals(0, new CommandLine(new Generate()).execute(args.toArray(new String[0])), String.join(" ", args));
        assertArrayEquals(Files.readAllBytes(Fixtures.root().resolve("testdata/fixtures/sample/wal")), Files.readAllBytes(made));
    }
}
