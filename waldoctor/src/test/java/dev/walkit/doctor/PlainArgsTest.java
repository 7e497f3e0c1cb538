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
        WalDoctor.Diagnose d = (WalDoctor.Diagnose) picocliCommand("diagnose", args);
        return d == null ? null : describe(d, d.page.options());
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

    /** The command picocli makes of {@code args} when it runs {@code command} (not help, no error), or null. */
    private static Object picocliCommand(String command, String... args) {
        CommandLine cl = WalDoctor.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (!r.hasSubcommand() || !r.subcommand().commandSpec().name().equals(command)) return null;
            CommandLine.ParseResult sub = r.subcommand();
            return sub.isUsageHelpRequested() || sub.isVersionHelpRequested() ? null : sub.commandSpec().userObject();
        } catch (CommandLine.ParameterException e) {
            return null;
        }
    }

    /**
     * The plain parse of {@code command} against picocli's: each of {@code plain} accepted alike, each of {@code other}
     * left to picocli, and 5,000 lines of up to {@code most} of {@code words} after the command name: whatever the plain parse accepts,
     * picocli parses to the same options.
     */
    private static <T> void agreesWithPicocli(String command, String[][] plain, String[][] other, String[] words, int most, long seed,
                                              java.util.function.Function<String[], T> parse, java.util.function.Function<T, String> describe) {
        for (String[] args : plain) {
            T t = parse.apply(args);
            assertNotNull(t, String.join(" ", args));
            @SuppressWarnings("unchecked")
            T want = (T) picocliCommand(command, args);
            assertEquals(describe.apply(want), describe.apply(t), String.join(" ", args));
        }
        for (String[] args : other) assertNull(parse.apply(args), String.join(" ", args));
        Random rnd = new Random(seed);
        int answered = 0;
        for (int n = 0; n < 5_000; n++) {
            List<String> args = new ArrayList<>();
            args.add(command);
            int len = rnd.nextInt(most + 1);
            for (int i = 0; i < len; i++) args.add(words[rnd.nextInt(words.length)]);
            String[] a = args.toArray(new String[0]);
            T t = parse.apply(a);
            if (t == null) continue;
            answered++;
            @SuppressWarnings("unchecked")
            T want = (T) picocliCommand(command, a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(describe.apply(want), describe.apply(t), args.toString());
        }
        assertFalse(answered < 300, "the generator reached the plain forms only " + answered + " times");
    }

    private static final String[] SERVE_WORDS = {"serve", "--listen", "127.0.0.1:0", "--listen=:2379", "--listen=", "--rev", "5", "-5", "+5", "0x5",
            "--rev=7", "--rev=", "99999999999999999999", "--no-index", "--cert-file", "c.pem", "wal", "/var/lib/store", "-", "--", "@args", "--help", ""};

    private static String describe(Serve s) {
        return "listen=" + s.listen + " rev=" + s.rev + " noIndex=" + s.noIndex + " tls=" + (s.certFile != null) + " path=" + s.path;
    }

    @Test
    void servesPlainFormsAreParsedWithoutPicocli() {
        agreesWithPicocli("serve", new String[][] {{"serve", "wal"}, {"serve", "wal", "--listen", "127.0.0.1:0"},
                        {"serve", "--listen=:2379", "--rev", "5", "wal"}, {"serve", "--no-index", "/var/lib/store", "--rev=7"}},
                new String[][] {{"serve"}, {"serve", "wal", "--cert-file", "c.pem"}, {"serve", "wal", "--rev", "-5"}, {"serve", "--listen", "wal"},
                        {"serve", "wal", "--help"}, {"serve", "--no-index", "--no-index", "wal"}},
                SERVE_WORDS, 5, 47, PlainArgs::serve, PlainArgsTest::describe);
    }

    private static final String[] SHELL_WORDS = {"shell", "--no-index", "--show-secrets", "--help", "-V", "--", "@args", "wal", "/var/lib/store",
            "-x", "", "--no-index=true"};

    private static String describe(WalDoctor.ShellCmd s) {
        return "noIndex=" + s.noIndex + " secrets=" + s.showSecrets + " path=" + s.path;
    }

    @Test
    void theShellsPlainFormsAreParsedWithoutPicocli() {
        agreesWithPicocli("shell", new String[][] {{"shell", "wal"}, {"shell", "--no-index", "wal"}, {"shell", "wal", "--show-secrets", "--no-index"}},
                new String[][] {{"shell"}, {"shell", "wal", "other"}, {"shell", "--help", "wal"}, {"shell", "--no-index", "--no-index", "wal"},
                        {"shell", "-", "wal"}},
                SHELL_WORDS, 4, 4747, PlainArgs::shell, PlainArgsTest::describe);
    }

    private static final String[] GET_WORDS = {"get", "--no-index", "--show-secrets", "--rev", "5", "-w", "json", "--help", "--", "@args",
            "wal", "/var/lib/store", "/registry/pods/a", "key with space", "-x", "", "wal", "/registry/pods/a"};

    private static String describe(WalDoctor.OneShot g) {
        return "command=" + g.name() + " noIndex=" + g.noIndex + " secrets=" + g.showSecrets + " words=" + g.all
                + " format=" + (g.writeOut == null ? dev.walkit.cli.OutputFormat.SIMPLE : g.writeOut.format());
    }

    @Test
    void getsPlainFormIsParsedWithoutPicocli() {
        agreesWithPicocli("get", new String[][] {{"get", "wal", "/registry/pods/a"}, {"get", "--no-index", "wal", "k"}, {"get", "wal", "k", "--no-index"}},
                new String[][] {{"get", "wal"}, {"get", "wal", "k", "--rev", "5"}, {"get", "-w", "json", "wal", "k"}, {"get", "wal", "k", "other"},
                        {"get", "--help", "wal", "k"}, {"get", "--no-index", "--no-index", "wal", "k"}, {"get", "wal", "--prefix"}},
                GET_WORDS, 3, 474747, PlainArgs::get, PlainArgsTest::describe);
    }
}
