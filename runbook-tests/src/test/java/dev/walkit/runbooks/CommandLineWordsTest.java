package dev.walkit.runbooks;

import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.recover.WalRecover;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mistyped command line is answered in the tool's words, prefixed with the tool and its command, never the parser's
 * ("Unmatched arguments from index 0", "is not a long"): every unknown option with the nearest one; an argument too
 * many; a value that is not a number; an option without its value. {@code -w html} is listed, taken and completed only
 * where it is written (waldoctor diagnose).
 */
class CommandLineWordsTest {
    record Ran(int exit, String out, String err) {
    }

    static Ran run(String tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Object command = switch (tool) {
            case "walverify" -> new WalVerify();
            case "walrecover" -> new WalRecover();
            case "walmigrate" -> new WalMigrate();
            default -> null;
        };
        int exit = command == null ? WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args) : Cli.run(command, new PrintWriter(out), new PrintWriter(err), args);
        return new Ran(exit, out.toString(), err.toString());
    }

    static void says(String firstLine, String tool, String... args) {
        Ran r = run(tool, args);
        assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
        assertEquals(firstLine, r.err().lines().findFirst().orElse(""), String.join(" ", args));
        for (String parser : List.of("Unmatched argument", "is not a long", "is not an int", "Invalid value for", "Missing required")) {
            assertTrue(!r.err().contains(parser), "the parser's words: " + r.err());
        }
    }

    @Test
    void mistakesAreSaidInTheToolsWords() {
        says("walverify: unknown option '--levl': did you mean '--level'?", "walverify", "--levl", "semantic", "x");
        says("walrecover: unknown option '--polcy': did you mean '--policy'?", "walrecover", "--polcy=salvage", "--dry-run", "x");
        says("walmigrate wal: unknown option '--dryrun': did you mean '--dry-run'?", "walmigrate", "wal", "--wal", "x", "--dryrun");
        says("waldoctor diagnose: unknown option '--bogus'", "waldoctor", "diagnose", "--bogus", "x");
        says("walverify: unexpected argument 'b'", "walverify", "a", "b");
        says("walverify: --idle-exit: 'abc' is not a number", "walverify", "--follow", "--idle-exit", "abc", "x");
        says("waldoctor diagnose: --report needs a value (FILE.html)", "waldoctor", "diagnose", "--report");
        says("walverify: --write-out: 'html' is not an output format of this command (simple, json, table)", "walverify", "-w", "html", "x");
        says("waldoctor: unknown command 'sevre': did you mean 'serve'?", "waldoctor", "sevre");
    }

    /** The help of {@code main}'s command {@code sub} (null: the tool's own), as --help prints it. */
    static String help(String main, String sub) throws Exception {
        picocli.CommandLine cl = dev.walkit.cli.DocGen.commandLine(main);
        if (sub != null) cl = cl.getSubcommands().get(sub);
        return cl.getUsageMessage(picocli.CommandLine.Help.Ansi.OFF);
    }

    @Test
    void htmlIsListedWhereItIsWrittenOnly() throws Exception {
        String diagnose = help("dev.walkit.doctor.WalDoctor", "diagnose");
        assertTrue(diagnose.contains("--write-out=simple|json|table|html"), diagnose);
        for (String[] h : new String[][] {{"dev.walkit.verify.WalVerify", null}, {"dev.walkit.recover.WalRecover", null}, {"dev.walkit.migrate.WalMigrate", "verify"},
            {"dev.walkit.migrate.WalMigrate", "wal"}}) {
            String text = help(h[0], h[1]);
            assertTrue(text.contains("--write-out=simple|json|table") && !text.contains("html"), h[0] + " " + h[1] + ":\n" + text);
        }
        Ran page = run("waldoctor", "diagnose", "-w", "html", dev.walkit.format.Fixtures.path("vectors/small/wal").toString());
        assertEquals(0, page.exit(), page.err());
        assertTrue(page.out().startsWith("<!DOCTYPE html>"), page.out().substring(0, Math.min(80, page.out().length())));
    }
}
