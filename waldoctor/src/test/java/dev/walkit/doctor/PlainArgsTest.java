package dev.walkit.doctor;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/** The picocli-free parse of {@code waldoctor diagnose}'s plain command lines agrees with picocli wherever it answers. */
class PlainArgsTest {
    private static final String[] WORDS = {"diagnose", "shell", "-w", "json", "html", "table", "simple", "yaml", "--write-out", "--write-out=table",
            "-w=json", "-wjson", "--json", "--no-hash", "--report", "r.html", "--report=p.html", "--report=", "wal", "/var/lib/store", "-", "--", "@args",
            "--help", "-V", "-x", ""};

    /** What picocli makes of {@code args}: the diagnose command's options, or null when it errs, asks for help or runs another command. */
    private static String picocli(String... args) {
        CommandLine cl = WalDoctor.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (!r.hasSubcommand() || !r.subcommand().commandSpec().name().equals("diagnose")) return null;
            CommandLine.ParseResult sub = r.subcommand();
            if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested() || sub.hasSubcommand()) return null;
            WalDoctor.Diagnose d = (WalDoctor.Diagnose) sub.commandSpec().userObject();
            return describe(d, d.page.options());
        } catch (CommandLine.ParameterException e) {
            return null;
        }
    }

    private static String describe(WalDoctor.Diagnose d, dev.walkit.cli.WriteOut w) {
        return "format=" + w.writeOut() + " json=" + w.json() + " noHash=" + d.noHash + " report=" + d.report + " path=" + d.path;
    }

    private static String plain(String... args) {
        WalDoctor.Diagnose d = PlainArgs.diagnose(args);
        return d == null ? null : describe(d, d.given);
    }

    @Test
    void theRunbookFormsAreParsedWithoutPicocli() {
        String[][] plain = {{"diagnose", "wal"}, {"diagnose", "-w", "json", "wal"}, {"diagnose", "wal", "--json"},
                {"diagnose", "--write-out=html", "/var/lib/store"}, {"diagnose", "--report", "r.html", "wal"}, {"diagnose", "wal", "--report=p.html", "-w", "table"}, {"diagnose", "-w", "html", "--no-hash", "wal"}};
        for (String[] args : plain) {
            assertNotNull(plain(args), String.join(" ", args));
            assertEquals(picocli(args), plain(args), String.join(" ", args));
        }
    }

    @Test
    void everythingElseIsPicoclis() {
        String[][] other = {{}, {"diagnose"}, {"shell", "wal"}, {"diagnose", "-w", "yaml", "wal"}, {"diagnose", "wal", "other"}, {"diagnose", "--help"},
                {"diagnose", "--json", "--json", "wal"}, {"diagnose", "-w=json", "wal"}, {"diagnose", "--", "wal"}, {"diagnose", "@args"},
                {"diagnose", "--report", "wal"}, {"diagnose", "--report=", "wal"}, {"-w", "json", "diagnose", "wal"}};
        for (String[] args : other) assertNull(PlainArgs.diagnose(args), String.join(" ", args));
    }

    @Test
    void agreesWithPicocliOnGeneratedCommandLines() {
        Random rnd = new Random(20261206);
        int answered = 0;
        for (int n = 0; n < 5_000; n++) {
            List<String> args = new ArrayList<>();
            args.add(rnd.nextInt(8) == 0 ? WORDS[rnd.nextInt(WORDS.length)] : "diagnose");
            int len = rnd.nextInt(6);
            for (int i = 0; i < len; i++) args.add(WORDS[rnd.nextInt(WORDS.length)]);
            String[] a = args.toArray(new String[0]);
            String got = plain(a);
            if (got == null) continue;
            answered++;
            String want = picocli(a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(want, got, args.toString());
        }
        assertFalse(answered < 300, "the generator reached the plain forms only " + answered + " times");
    }

    private static final String[] SERVE_WORDS = {"serve", "--listen", "127.0.0.1:0", "--listen=:2379", "--listen=", "--rev", "5", "-5", "+5", "0x5",
            "--rev=7", "--rev=", "99999999999999999999", "--no-index", "--cert-file", "c.pem", "wal", "/var/lib/store", "-", "--", "@args", "--help", ""};

    /** What picocli makes of {@code args} for serve, or null. */
    private static String picocliServe(String... args) {
        CommandLine cl = WalDoctor.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (!r.hasSubcommand() || !r.subcommand().commandSpec().name().equals("serve")) return null;
            CommandLine.ParseResult sub = r.subcommand();
            if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested()) return null;
            return describe((Serve) sub.commandSpec().userObject());
        } catch (CommandLine.ParameterException e) {
            return null;
        }
    }

    private static String describe(Serve s) {
        return "listen=" + s.listen + " rev=" + s.rev + " noIndex=" + s.noIndex + " tls=" + (s.certFile != null) + " path=" + s.path;
    }

    @Test
    void servesPlainFormsAreParsedWithoutPicocli() {
        String[][] plain = {{"serve", "wal"}, {"serve", "wal", "--listen", "127.0.0.1:0"}, {"serve", "--listen=:2379", "--rev", "5", "wal"},
                {"serve", "--no-index", "/var/lib/store", "--rev=7"}};
        for (String[] args : plain) {
            Serve s = PlainArgs.serve(args);
            assertNotNull(s, String.join(" ", args));
            assertEquals(picocliServe(args), describe(s), String.join(" ", args));
        }
        String[][] other = {{"serve"}, {"serve", "wal", "--cert-file", "c.pem"}, {"serve", "wal", "--rev", "-5"}, {"serve", "--listen", "wal"},
                {"serve", "wal", "--help"}, {"serve", "--no-index", "--no-index", "wal"}};
        for (String[] args : other) assertNull(PlainArgs.serve(args), String.join(" ", args));
        Random rnd = new Random(47);
        int answered = 0;
        for (int n = 0; n < 5_000; n++) {
            List<String> args = new ArrayList<>();
            args.add("serve");
            int len = rnd.nextInt(6);
            for (int i = 0; i < len; i++) args.add(SERVE_WORDS[rnd.nextInt(SERVE_WORDS.length)]);
            String[] a = args.toArray(new String[0]);
            Serve s = PlainArgs.serve(a);
            if (s == null) continue;
            answered++;
            String want = picocliServe(a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(want, describe(s), args.toString());
        }
        assertFalse(answered < 300, "the generator reached the plain forms only " + answered + " times");
    }

    private static final String[] SHELL_WORDS = {"shell", "--no-index", "--show-secrets", "--help", "-V", "--", "@args", "wal", "/var/lib/store",
            "-x", "", "--no-index=true"};

    /** What picocli makes of {@code args} for the shell, or null. */
    private static String picocliShell(String... args) {
        CommandLine cl = WalDoctor.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (!r.hasSubcommand() || !r.subcommand().commandSpec().name().equals("shell")) return null;
            CommandLine.ParseResult sub = r.subcommand();
            if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested()) return null;
            return describe((WalDoctor.ShellCmd) sub.commandSpec().userObject());
        } catch (CommandLine.ParameterException e) {
            return null;
        }
    }

    private static String describe(WalDoctor.ShellCmd s) {
        return "noIndex=" + s.noIndex + " secrets=" + s.showSecrets + " path=" + s.path;
    }

    @Test
    void theShellsPlainFormsAreParsedWithoutPicocli() {
        String[][] plain = {{"shell", "wal"}, {"shell", "--no-index", "wal"}, {"shell", "wal", "--show-secrets", "--no-index"}};
        for (String[] args : plain) {
            WalDoctor.ShellCmd s = PlainArgs.shell(args);
            assertNotNull(s, String.join(" ", args));
            assertEquals(picocliShell(args), describe(s), String.join(" ", args));
        }
        String[][] other = {{"shell"}, {"shell", "wal", "other"}, {"shell", "--help", "wal"}, {"shell", "--no-index", "--no-index", "wal"}, {"shell", "-", "wal"}};
        for (String[] args : other) assertNull(PlainArgs.shell(args), String.join(" ", args));
        Random rnd = new Random(4747);
        int answered = 0;
        for (int n = 0; n < 5_000; n++) {
            List<String> args = new ArrayList<>();
            args.add("shell");
            int len = rnd.nextInt(5);
            for (int i = 0; i < len; i++) args.add(SHELL_WORDS[rnd.nextInt(SHELL_WORDS.length)]);
            String[] a = args.toArray(new String[0]);
            WalDoctor.ShellCmd s = PlainArgs.shell(a);
            if (s == null) continue;
            answered++;
            String want = picocliShell(a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(want, describe(s), args.toString());
        }
        assertFalse(answered < 300, "the generator reached the plain forms only " + answered + " times");
    }
}
