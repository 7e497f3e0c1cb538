package dev.walkit.verify;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/** The picocli-free parse of walverify's plain command lines agrees with picocli wherever it answers. */
class PlainArgsTest {
    private static final String[] WORDS = {"--level", "frame", "decode", "SEMANTIC", "deep", "--level=frame", "--level=", "--level=Decode",
            "--json", "--jsonl", "-q", "--quiet", "-w", "json", "table", "simple", "yaml", "--write-out", "--write-out=table", "-w=json",
            "-wjson", "-qw", "wal", "/var/lib/store", "-", "--", "@args", "generate-completion", "-V", "--help", "-x", ""};

    /** What picocli makes of {@code args}: the options, or null when it errs or asks for help. */
    private static String picocli(String... args) {
        WalVerify v = new WalVerify();
        CommandLine cl = new CommandLine(v);
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (r.isUsageHelpRequested() || r.isVersionHelpRequested() || r.hasSubcommand()) return null;
        } catch (CommandLine.ParameterException e) {
            return null;
        }
        return describe(v);
    }

    private static String describe(WalVerify v) {
        return v.level + " format=" + v.writeOut.writeOut() + " json=" + v.writeOut.json() + " jsonl=" + v.jsonl + " quiet=" + v.quiet + " path=" + v.path;
    }

    @Test
    void theRunbookFormsAreParsedWithoutPicocli() {
        String[][] plain = {{"wal"}, {"-q", "wal"}, {"--level", "frame", "wal"}, {"--level=semantic", "--json", "wal"},
                {"wal", "-w", "table"}, {"--write-out=json", "--quiet", "--level", "DECODE", "/var/lib/store"}, {"--jsonl", "wal"},
                {"--json", "--jsonl", "wal"}};  // the last one parses; the command then refuses it, as picocli's would
        for (String[] args : plain) {
            WalVerify v = PlainArgs.parse(args);
            assertNotNull(v, String.join(" ", args));
            assertEquals(picocli(args), describe(v), String.join(" ", args));
        }
    }

    @Test
    void everythingElseIsPicoclis() {
        String[][] other = {{}, {"--level", "deep", "wal"}, {"-q", "-q", "wal"}, {"wal", "other"}, {"-qw", "json", "wal"}, {"@args"},
                {"--help"}, {"wal", "--version"}, {"generate-completion"}, {"--level", "wal"}, {"-w=json", "wal"}, {"--", "wal"}, {"-"}};
        for (String[] args : other) assertNull(PlainArgs.parse(args), String.join(" ", args));
    }

    @Test
    void agreesWithPicocliOnGeneratedCommandLines() {
        Random rnd = new Random(20261202);
        int answered = 0;
        for (int n = 0; n < 20_000; n++) {
            List<String> args = new ArrayList<>();
            int len = rnd.nextInt(7);
            for (int i = 0; i < len; i++) args.add(WORDS[rnd.nextInt(WORDS.length)]);
            String[] a = args.toArray(new String[0]);
            WalVerify v = PlainArgs.parse(a);
            if (v == null) continue;
            answered++;
            String want = picocli(a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(want, describe(v), args.toString());
        }
        assertFalse(answered < 500, "the generator reached the plain forms only " + answered + " times");
    }
}
