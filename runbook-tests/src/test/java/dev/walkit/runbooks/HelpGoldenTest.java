package dev.walkit.runbooks;

import dev.walkit.cli.DocGen;
import dev.walkit.format.Fixtures;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command's {@code --help}, word for word, against {@code docs/help/COMMAND.txt} (and wrapped to any width at
 * spaces: {@link #assertWrapsAtSpaces}) (so that a change to what a
 * tool says shows in review; {@code -Dgolden.update=true} rewrites them), and what help must not do: a description
 * that stops mid-sentence, or a tool that reads every store described as reading a WAL only.
 */
class HelpGoldenTest {
    static final Path DIR = Fixtures.root().resolve("docs/help");

    @ParameterizedTest
    @ValueSource(strings = {"dev.walkit.verify.WalVerify", "dev.walkit.doctor.WalDoctor", "dev.walkit.recover.WalRecover",
            "dev.walkit.migrate.WalMigrate"})
    void everyCommandsHelpIsItsGoldenAndEverySentenceEnds(String mainClass) throws Exception {
        List<CommandLine> all = new ArrayList<>();
        collect(DocGen.commandLine(mainClass), all);
        for (CommandLine cl : all) {
            String name = cl.getCommandSpec().qualifiedName("-");
            String text = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            Path golden = DIR.resolve(name + ".txt");
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(DIR);
                Files.writeString(golden, text);
            }
            assertTrue(Files.exists(golden), golden + " is missing: run with -Dgolden.update=true and review it");
            assertEquals(Files.readString(golden), text, name + " --help (docs/help/" + name + ".txt)");
            assertWrapsAtSpaces(cl, name);
            // A command's summary (its first line, what the parent's command list shows) is a whole sentence.
            String[] lines = cl.getCommandSpec().usageMessage().description();
            if (lines.length > 0 && !name.endsWith("generate-completion")) {
                assertTrue(lines[0].strip().matches("(?s).*[.)?!]$"), name + ": a summary cut mid-sentence: «" + lines[0] + "»");
            }
            List<String> descriptions = new ArrayList<>();
            descriptions.add(String.join(" ", cl.getCommandSpec().usageMessage().description()));
            cl.getCommandSpec().options().forEach(o -> descriptions.add(String.join(" ", o.description())));
            cl.getCommandSpec().positionalParameters().forEach(p -> descriptions.add(String.join(" ", p.description())));
            for (String d : descriptions) {
                String t = d.strip();
                if (t.isEmpty() || name.endsWith("generate-completion")) continue;
                assertTrue(t.matches("(?s).*[.):?!]$") || t.endsWith("%n"), name + ": a description that does not end a sentence: «" + t + "»");
            }
        }
    }

    /**
     * The help the launcher prints without picocli (rendered unwrapped at build time, wrapped at run time) is the golden
     * at 80 columns, and at any terminal width every line fits and no word is split.
     */
    private static void assertWrapsAtSpaces(CommandLine cl, String name) throws Exception {
        System.setProperty(dev.walkit.cli.HelpWrap.UNWRAPPED, "true");
        String unwrapped;
        try {
            unwrapped = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
        } finally {
            System.clearProperty(dev.walkit.cli.HelpWrap.UNWRAPPED);
        }
        assertEquals(Files.readString(DIR.resolve(name + ".txt")), dev.walkit.cli.HelpWrap.wrap(unwrapped, 80), name + ": the prebuilt help at 80 columns");
        for (int width : new int[] {48, 64, 100, 160}) {
            String w = dev.walkit.cli.HelpWrap.wrap(unwrapped, width);
            assertEquals(List.of(unwrapped.strip().split("\\s+")), List.of(w.strip().split("\\s+")), name + " at " + width + ": a word split or lost");
            for (String line : w.lines().toList()) {
                assertTrue(line.length() <= width || !line.strip().contains(" "), name + " at " + width + ": «" + line + "»");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"walverify", "waldoctor", "walmigrate"})
    void toolsThatReadEveryStoreSaySo(String tool) throws Exception {
        String text = Files.readString(DIR.resolve(tool + ".txt")).replaceAll("\\s+", " ");
        assertTrue(text.contains("etcd") && text.contains("kine"), tool + " --help names only a WAL: " + text);
    }

    /** The shell's history file, where man(1) readers look for it: FILES, and XDG_STATE_HOME under ENVIRONMENT. */
    @org.junit.jupiter.api.Test
    void waldoctorsManPageNamesTheHistoryFile() throws Exception {
        String man = DocGen.manPage(DocGen.commandLine("dev.walkit.doctor.WalDoctor"));
        String files = man.substring(man.indexOf(".SH FILES"), man.indexOf(".SH SEE ALSO"));
        assertTrue(files.contains("$XDG_STATE_HOME/walkit/waldoctor_history") && files.contains("$HOME/.local/state/walkit/waldoctor_history")
                && files.contains("0600"), files);
        assertTrue(man.substring(man.indexOf(".SH ENVIRONMENT")).contains(".B XDG_STATE_HOME"), man);
    }

    /** man(1) renders the pages at 80 columns without splitting a word, an option's name least of all (--ac‐ cept-crc). */
    @ParameterizedTest
    @ValueSource(strings = {"dev.walkit.verify.WalVerify", "dev.walkit.doctor.WalDoctor", "dev.walkit.recover.WalRecover",
            "dev.walkit.migrate.WalMigrate"})
    void manPagesSplitNoWord(String mainClass) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/man")), "man-db is not installed (scripts/test installs it)");
        Path page = Files.createTempFile("walkit-man", ".1");
        try {
            Files.writeString(page, DocGen.manPage(DocGen.commandLine(mainClass)));
            ProcessBuilder pb = new ProcessBuilder("man", "-l", page.toString()).redirectErrorStream(true);
            pb.environment().put("MANWIDTH", "80");
            pb.environment().put("MANPAGER", "cat");
            pb.environment().put("PAGER", "cat");
            Process p = pb.start();
            String text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(text.contains("--help"), text);
            assertTrue(!text.contains("\u2010") && !text.matches("(?s).*[a-z]-\n\\s+[a-z].*"), "a word split across lines:\n" + text);
        } finally {
            Files.deleteIfExists(page);
        }
    }

    private static void collect(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) collect(sub, out);
    }
}
