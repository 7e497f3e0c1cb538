package dev.walkit.runbooks;

import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.Fixtures;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.recover.WalRecover;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's words cannot drift: every {@code $ bin/TOOL …} example is run (from the checkout's root) and each line
 * shown under it must be what the tool printed, exactly; the tarball it names is the one the build writes.
 */
class ReadmeTest {
    static final Path ROOT = Fixtures.root();

    @Test
    void everyExampleCommandPrintsWhatTheReadmeShows() throws Exception {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int examples = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("$ bin/")) continue;
            String[] words = line.substring("$ bin/".length()).trim().split("\\s+");
            String[] args = new String[words.length - 1];
            for (int k = 1; k < words.length; k++) args[k - 1] = Files.exists(ROOT.resolve(words[k])) ? ROOT.resolve(words[k]).toString() : words[k];
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = switch (words[0]) {
                case "walverify" -> Cli.run(new WalVerify(), new PrintWriter(out), new PrintWriter(err), args);
                case "walrecover" -> Cli.run(new WalRecover(), new PrintWriter(out), new PrintWriter(err), args);
                case "walmigrate" -> Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
                case "waldoctor" -> WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
                default -> throw new AssertionError("README: unknown tool in " + line);
            };
            String printed = out.toString().replace(ROOT + "/", "");
            List<String> shown = new ArrayList<>();
            for (int j = i + 1; j < lines.size() && !lines.get(j).startsWith("```") && !lines.get(j).startsWith("$ "); j++) shown.add(lines.get(j));
            for (String s : shown) assertTrue(printed.lines().anyMatch(s::equals), "README line " + (i + 1) + " shows a line the command did not print:\n" + s
                    + "\n--- printed:\n" + printed);
            Matcher m = Pattern.compile("\\(exit (\\d+)\\)").matcher(String.join("\n", shown));
            if (m.find()) assertEquals(Integer.parseInt(m.group(1)), code, line);
            examples++;
        }
        assertTrue(examples >= 1, "the README's examples were found");
    }

    @Test
    void theTarballItNamesIsTheOneTheBuildWrites() throws Exception {
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        Matcher v = Pattern.compile("<artifactId>walkit-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(v.find(), "the project's version");
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher named = Pattern.compile("walkit-([0-9][^/ ]*?)\\.tar\\.gz").matcher(readme);
        int n = 0;
        while (named.find()) {
            assertEquals(v.group(1), named.group(1), "README names walkit-" + named.group(1) + ".tar.gz");
            n++;
        }
        assertTrue(n >= 1);
        assertFalse(readme.contains("\npid)."), "a stray fragment");
    }

    /** The README's exit-code table is cli-common's one table (ExitCode), row for row: the code a tool returns is the one it shows. */
    @Test
    void theExitCodeTableIsExitCodesOwn() throws Exception {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int at = lines.indexOf("## Exit codes (one table for the four tools)");
        assertTrue(at >= 0, "the README has its exit-code table");
        List<String> shown = new ArrayList<>();
        for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            if (lines.get(i).matches("\\| \\d+ \\|.*")) shown.add(lines.get(i));
        }
        List<String> want = new ArrayList<>();
        dev.walkit.cli.ExitCode.helpLines().forEach((code, meaning) -> want.add("| " + code.trim() + " | " + meaning.replace("|", "\\|") + " |"));
        assertEquals(String.join("\n", want), String.join("\n", shown));
    }
}
