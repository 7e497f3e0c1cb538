package dev.walkit.migrate;

import dev.walkit.cli.WriteOut;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/** The picocli-free parse of the migration job's command lines agrees with picocli wherever it answers. */
class PlainArgsTest {
    private static final String[] WORDS = {"kine", "wal", "verify", "--sqlite", "--wal", "state.db", "/var/lib/rancher/k3s/server/db/state.db",
            "--endpoints", "http://127.0.0.1:2379", "http://a:2379,http://b:2379", "a,,b", "--endpoints=http://e:2379", "--prefix", "/registry/",
            "--prefix=/registry/pods/", "--prefix=", "--batch", "64", "+5", "0x10", "--batch=1", "--concurrency", "16", "--concurrency=0",
            "--lease-ttl", "60", "--dry-run", "-w", "json", "table", "yaml", "--write-out", "--write-out=simple", "--json", "--out-wal",
            "--cacert", "ca.pem", "--user", "root", "-h", "--help", "-V", "--", "@args", "-x", "", "-wjson"};

    /** Options with values (or alone), mostly well formed, so that many lines reach the plain forms. */
    private static final String[][] PAIRS = {{"--endpoints", "http://127.0.0.1:2379"}, {"--endpoints=http://a:2379,http://b:2379"},
            {"--prefix", "/registry/"}, {"--prefix=/registry/pods/"}, {"--batch", "64"}, {"--batch=7"}, {"--concurrency", "16"},
            {"--concurrency=300"}, {"--lease-ttl", "60"}, {"--dry-run"}, {"-w", "json"}, {"--write-out=table"}, {"--write-out", "simple"},
            {"--json"}, {"--batch", "0"}};

    private static String describe(String sub, Path source, WriteOut w, MigrateOptions o) {
        return sub + " source=" + source + " format=" + w.writeOut() + " json=" + w.json() + " " + o;
    }

    /** What picocli makes of {@code args} for kine/wal: the options, or null when it errs, asks for help or runs another command. */
    private static String picocli(String... args) {
        WalMigrate m = new WalMigrate();
        CommandLine cl = new CommandLine(m);
        try {
            CommandLine.ParseResult r = cl.parseArgs(args);
            if (r.isUsageHelpRequested() || r.isVersionHelpRequested() || !r.hasSubcommand()) return null;
            CommandLine.ParseResult sub = r.subcommand();
            if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested()) return null;
            Object c = sub.commandSpec().userObject();
            if (c instanceof WalMigrate.Kine k) {
                if (k.offline.outWal != null || k.offline.outKine != null) return null;
                return describe("kine", k.sqlite, k.writeOut, k.target.t.options());
            }
            if (c instanceof WalMigrate.FromWal w) {
                if (w.offline.outWal != null || w.offline.outKine != null) return null;
                return describe("wal", w.wal, w.writeOut, w.target.t.options());
            }
            return null;
        } catch (CommandLine.ParameterException e) {
            return null;
        }
    }

    private static String plain(String... args) {
        PlainArgs.Parsed p = PlainArgs.parse(args);
        return p == null ? null : describe(p.subcommand(), p.source(), p.writeOut(), p.options());
    }

    @Test
    void theMigrationJobsFormsAreParsedWithoutPicocli() {
        String[][] forms = {
                {"kine", "--sqlite", "state.db", "--endpoints", "http://127.0.0.1:2379"},
                {"kine", "--sqlite=state.db", "--endpoints=http://a:2379,http://b:2379", "--batch", "64", "--concurrency", "16"},
                {"kine", "--sqlite", "state.db", "--dry-run"},
                {"kine", "--sqlite", "state.db", "--dry-run", "--prefix", "/registry/pods/", "-w", "json"},
                {"wal", "--wal", "/var/lib/store", "--endpoints", "http://127.0.0.1:2379", "--lease-ttl", "60", "--json"},
                {"kine", "--endpoints", "http://e:2379", "--sqlite", "state.db", "--write-out", "table"}};
        for (String[] args : forms) {
            String got = plain(args);
            assertNotNull(got, String.join(" ", args));
            assertEquals(picocli(args), got, String.join(" ", args));
        }
    }

    @Test
    void everythingElseIsPicoclis() {
        String[][] other = {{}, {"kine"}, {"kine", "--sqlite", "state.db"}, {"verify", "--sqlite", "state.db", "--endpoints", "http://e:2379"},
                {"kine", "--sqlite", "state.db", "--out-wal", "dir"}, {"kine", "--sqlite", "a", "--sqlite", "b", "--dry-run"},
                {"kine", "--sqlite", "state.db", "--dry-run", "--cacert", "ca.pem"}, {"kine", "--help"}, {"--version"},
                {"wal", "--sqlite", "state.db", "--dry-run"}, {"kine", "--sqlite", "state.db", "--batch", "+5", "--dry-run"},
                {"kine", "--sqlite", "state.db", "--endpoints", "a,,b"}, {"kine", "--sqlite", "@args", "--dry-run"}};
        for (String[] args : other) assertNull(PlainArgs.parse(args), String.join(" ", args));
    }

    @Test
    void agreesWithPicocliOnGeneratedCommandLines() {
        Random rnd = new Random(20261202);
        int answered = 0;
        for (int n = 0; n < 30_000; n++) {
            List<String> args = new ArrayList<>();
            args.add(rnd.nextInt(10) == 0 ? WORDS[rnd.nextInt(WORDS.length)] : rnd.nextBoolean() ? "kine" : "wal");
            args.add(rnd.nextBoolean() ? "--sqlite" : "--wal");
            args.add("state.db");
            int len = rnd.nextInt(6);
            for (int i = 0; i < len; i++) {
                if (rnd.nextInt(5) == 0) {
                    args.add(WORDS[rnd.nextInt(WORDS.length)]);
                } else {
                    String[] pair = PAIRS[rnd.nextInt(PAIRS.length)];
                    args.addAll(List.of(pair));
                }
            }
            if (rnd.nextInt(3) > 0) java.util.Collections.shuffle(args.subList(1, args.size()), rnd);
            String[] a = args.toArray(new String[0]);
            String got = plain(a);
            if (got == null) continue;
            answered++;
            String want = picocli(a);
            if (want == null) fail("picocli refuses what the plain parse accepted: " + args);
            assertEquals(want, got, args.toString());
        }
        assertFalse(answered < 500, "the generator reached the plain forms only " + answered + " times");
    }
}
