package dev.walkit.runbooks;

import dev.walkit.cli.DocGen;
import dev.walkit.cli.FastStart;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The help that bin/TOOL --help prints without loading picocli (rendered unwrapped into each tool's jar at build
 * time, wrapped when printed) is, byte for byte, what picocli prints: for every command and subcommand, plain and coloured.
 */
class PrebuiltHelpTest {
    @ParameterizedTest
    @ValueSource(strings = {"dev.walkit.verify.WalVerify", "dev.walkit.doctor.WalDoctor", "dev.walkit.recover.WalRecover",
            "dev.walkit.migrate.WalMigrate"})
    void everyCommandsPrebuiltHelpIsPicoclisHelp(String mainClass) throws Exception {
        CommandLine tool = DocGen.commandLine(mainClass);
        List<CommandLine> all = new ArrayList<>();
        collect(tool, all);
        assertTrue(all.size() >= 2, "the tool and generate-completion at least");
        for (CommandLine cl : all) {
            String name = cl.getCommandSpec().qualifiedName("-");
            for (CommandLine.Help.Ansi ansi : new CommandLine.Help.Ansi[] {CommandLine.Help.Ansi.OFF, CommandLine.Help.Ansi.ON}) {
                byte[] text = FastStart.help(name, ansi == CommandLine.Help.Ansi.ON);
                assertNotNull(text, "no prebuilt help for " + name + " (ansi " + ansi + ")");
                // Prebuilt unwrapped, wrapped where it is printed (to the terminal's width; 80 here, as picocli's here).
                assertEquals(cl.getUsageMessage(ansi), dev.walkit.cli.HelpWrap.wrap(new String(text, StandardCharsets.UTF_8), dev.walkit.cli.HelpWrap.DEFAULT),
                        name + " (ansi " + ansi + ")");
            }
            List<String> args = new ArrayList<>();
            for (CommandLine c = cl; c.getParent() != null; c = c.getParent()) args.add(0, c.getCommandName());
            args.add("--help");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            assertEquals(0, FastStart.answer(tool.getCommandName(), args.toArray(new String[0]), new PrintStream(bytes, true, StandardCharsets.UTF_8), false));
            assertEquals(cl.getUsageMessage(CommandLine.Help.Ansi.OFF), bytes.toString(StandardCharsets.UTF_8), String.join(" ", args));
        }
    }

    private static void collect(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) collect(sub, out);
    }
}
