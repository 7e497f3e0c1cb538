package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code waldoctor}: the incident report, an interactive shell, and the shell's commands one-shot. */
@Command(name = "waldoctor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"The first thing to run during an incident: what this store is (a WAL, an etcd db or data directory, a kine "
                + "state.db), what is wrong with it, what it costs, and what to run next (diagnose); then look around (shell, or "
                + "one command at a time), or serve it over etcd's API (serve)."},
        subcommands = {WalDoctor.Diagnose.class, WalDoctor.ShellCmd.class, Serve.class, picocli.AutoComplete.GenerateCompletion.class})
public final class WalDoctor implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        String training = System.getenv("WALKIT_CDS_TRAIN");
        if (training != null && !training.isEmpty() && args.length == 2 && args[0].equals("serve")) {
            Cli.exit("waldoctor", CdsTraining.serve(args)); // bin/_cds: what serve's class-data sharing archive covers
        }
        // The command lines an operator or a runbook types most skip building picocli's model of every command (≈ 0.2 s
        // of a run): `diagnose [-w F] PATH`, `shell PATH` (a second open of a large store is a third of a second),
        // serve's (a client waits on its start) and `get PATH KEY`. Anything else, errors included, is picocli's.
        Diagnose diagnose = PlainArgs.diagnose(args);
        if (diagnose != null) {
            // bin/_cds: the report of the other stores first, so that their classes are archived too.
            dev.walkit.cli.CdsTraining.alsoRead(args, a -> {
                Diagnose d = PlainArgs.diagnose(a);
                return d == null ? null : d.run(dev.walkit.cli.CdsTraining.discard(), dev.walkit.cli.CdsTraining.discard());
            });
            runPlain("waldoctor diagnose", diagnose::run);
        }
        ShellCmd shell = PlainArgs.shell(args);
        if (shell != null) runPlain("waldoctor shell", shell::run);
        Serve serve = PlainArgs.serve(args);
        if (serve != null) runPlain("waldoctor serve", (out, err) -> serve.run(err));
        OneShot get = PlainArgs.get(args);
        if (get != null) runPlain("waldoctor get", get::run);
        Cli.exit("waldoctor", run(Cli.stdout(), Cli.stderr(), args));
    }

    /** A command parsed without picocli, run as main runs picocli's: its exit code, an internal error as 70. */
    @FunctionalInterface
    private interface PlainRun {
        int run(PrintWriter out, PrintWriter err);
    }

    private static void runPlain(String name, PlainRun command) {
        PrintWriter out = Cli.stdout();
        PrintWriter err = Cli.stderr();
        int code;
        try {
            code = command.run(out, err);
        } catch (RuntimeException e) {
            code = Cli.internalError(name, e, err);
        }
        out.flush();
        err.flush();
        Cli.exit("waldoctor", code);
    }

    /** What tests call: the tool with its one-shot commands added from the command table. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return commandLine(out, err).execute(outputFirst(args));
    }

    /**
     * etcdctl's habit: the output option before the command ({@code waldoctor -w json get …}, {@code --json get …})
     * is the command's, moved after its name.
     */
    static String[] outputFirst(String... args) {
        int n = args.length > 0 && (args[0].equals("--json") || args[0].startsWith("-w=") || args[0].startsWith("--write-out=")) ? 1
                : args.length > 1 && (args[0].equals("-w") || args[0].equals("--write-out")) ? 2 : 0;
        if (n == 0 || args.length <= n || args[n].startsWith("-")) return args;
        String[] out = new String[args.length];
        out[0] = args[n];
        System.arraycopy(args, 0, out, 1, n);
        System.arraycopy(args, n + 1, out, n + 1, args.length - n - 1);
        return out;
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new WalDoctor());
        for (ShellCommand c : Commands.table().values()) {
            if (c.name().equals("quit") || c.name().equals("help")) continue;
            CommandLine sub = new CommandLine(new OneShot(c));
            sub.setUnmatchedOptionsArePositionalParams(true);
            sub.getCommandSpec().usageMessage().description(sentence(c.help()), "(In the shell: " + c.usage() + ")");
            cl.addSubcommand(c.name(), sub);
        }
        return Cli.configure(cl, out, err);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE.code();
    }

    /** --no-index's help, the same for every command that loads a history. */
    static final String NO_INDEX = "Read the WAL whole, neither using nor saving its index (kept in $XDG_CACHE_HOME/walkit/index, "
            + "else ~/.cache/walkit/index, so that the next open of the same unchanged file is quick).";

    /** What a command does with the loaded log; returns the exit code. */
    @FunctionalInterface
    interface WithIndex {
        int run(StoreHistory x) throws IOException;
    }

    /**
     * Loads {@code path}, runs {@code action}, closes; unreadable input is exit 4 with one line, prefixed with the
     * command's name ({@code waldoctor diagnose:}).
     */
    static int withIndex(String name, Path path, PrintWriter err, boolean progress, boolean noIndex, WithIndex action) {
        try (StoreHistory x = load(path, err, progress, IndexCache.of(name, noIndex, err))) {
            return action.run(x);
        } catch (IOException | UncheckedIOException e) {
            err.println(name + ": " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
    }

    /** What diagnose does with the store's tallies; returns the exit code. */
    @FunctionalInterface
    interface WithTallies {
        int run(dev.walkit.format.pass.Tallies x) throws IOException;
    }

    /** As {@link #withIndex}, with what the report needs of the store from one read ({@link Pass#tally}: no history of a db). */
    static int withTallies(String name, Path path, PrintWriter err, boolean progress, WithTallies action) {
        err.flush();
        try {
            dev.walkit.format.pass.Pass.Input store = dev.walkit.format.pass.Pass.input(path);
            long size = store.kind() == dev.walkit.format.account.Store.Kind.WAL ? java.nio.file.Files.size(store.file()) : 0;
            dev.walkit.format.pass.Tallies x;
            dev.walkit.cli.Timing.mark("start");
            try (dev.walkit.cli.Progress bar = dev.walkit.cli.Progress.of("loading", size, progress)) {
                x = Pass.tally(path, bar);
            }
            dev.walkit.cli.Timing.mark("read");
            try (x) {
                return action.run(x);
            }
        } catch (IOException | UncheckedIOException e) {
            err.println(name + ": " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
    }

    static StoreHistory load(Path path, PrintWriter err, boolean progress, dev.walkit.format.pass.SavedIndex.Cache cache) throws IOException {
        err.flush();
        // The bar counts the WAL's bytes; another store's history is read into its WAL form first (no bar for it).
        dev.walkit.format.pass.Pass.Input store = dev.walkit.format.pass.Pass.input(path);
        long size = store.kind() == dev.walkit.format.account.Store.Kind.WAL ? java.nio.file.Files.size(store.file()) : 0;
        try (dev.walkit.cli.Progress bar = dev.walkit.cli.Progress.of("loading", size, progress)) {
            return Pass.history(path, bar, cache);
        }
    }

    @Command(name = "diagnose", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "The incident report; exit codes as walverify's.")
    static final class Diagnose implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        WriteOut.Page page;

        @Parameters(paramLabel = "PATH", description = "A WAL file, an etcd db or data directory, or a kine state.db.")
        Path path;

        @Option(names = "--report", paramLabel = "FILE.html", description = "Also write the report as one self-contained HTML page "
                + "(-w html's) to FILE: written whole and fsynced beside it, then renamed into place.")
        Path report;

        @Option(names = "--no-hash", description = "Leave the input's SHA-256 out of the page (-w html, --report), which then says so: "
                + "the hash reads every byte of the input once more.")
        boolean noHash;

        /** -w and --json as the plain parse read them ({@link PlainArgs}); null: picocli's mixin has them. */
        WriteOut given;

        @Override
        public Integer call() {
            return run(spec.commandLine().getOut(), spec.commandLine().getErr());
        }

        int run(PrintWriter out, PrintWriter err) {
            WriteOut writeOut = given != null ? given : page.options();
            if (writeOut.check("waldoctor diagnose", err, OutputFormat.values()) != null) return ExitCode.USAGE.code();
            OutputFormat format = writeOut.format();
            if (report != null && (report.getParent() != null && !java.nio.file.Files.isDirectory(report.getParent()))) {
                err.println("waldoctor diagnose: --report " + report + ": no directory " + report.getParent());
                return ExitCode.USAGE.code();
            }
            // The page names the input by its SHA-256: hashed on a thread of its own while the store loads (0.8 s a GiB of one core).
            boolean page = format == OutputFormat.HTML || report != null;
            FileSha256 sha = page && !noHash ? FileSha256.start(path) : null;
            // A page is read elsewhere (attached to a ticket): it names the input by its absolute path, and so do its next commands.
            Path read = page ? path.toAbsolutePath().normalize() : path;
            return withTallies("waldoctor diagnose", read, err, format == OutputFormat.SIMPLE, x -> {
                Diagnosis d = Diagnosis.of(x);
                dev.walkit.cli.Timing.mark("diagnosed");
                java.util.function.Supplier<DiagnosisHtml.Examined> examined = () -> new DiagnosisHtml.Examined(
                        dev.walkit.cli.FastStart.versionLine("waldoctor"), host() + ":" + x.account().store().path(), x.account().store().bytes(),
                        sha == null ? NO_HASH : sha.result(), java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
                DiagnosisPrinter.of(format, examined).print(out, d);
                out.flush();
                dev.walkit.cli.Timing.mark("printed");
                if (report != null) {
                    try {
                        writeReport(report, new DiagnosisHtml(examined.get()).page(d));
                    } catch (IOException e) {
                        err.println("waldoctor diagnose: --report " + report + ": " + dev.walkit.cli.IoErrors.describe(e));
                        err.flush();
                        return ExitCode.UNREADABLE.code();
                    }
                }
                return d.exitCode().code();
            });
        }

        /** What the page says in place of the SHA-256 under --no-hash. */
        static final String NO_HASH = "not computed (--no-hash)";

        /** The page whole beside {@code file}, fsynced, renamed over it: a reader never sees half a report. */
        private static void writeReport(Path file, String html) throws IOException {
            Path dir = file.toAbsolutePath().getParent();
            Path tmp = java.nio.file.Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
            try {
                java.nio.file.Files.writeString(tmp, html, StandardCharsets.UTF_8);
                dev.walkit.format.output.Durable.fsync(tmp);
                dev.walkit.format.output.Durable.rename(tmp, file);
            } finally {
                java.nio.file.Files.deleteIfExists(tmp);
            }
        }
    }

    @Command(name = "shell", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = {"Load the log once, then answer commands ('help' lists them).",
            "On a terminal: completion (Tab), history, Ctrl-C clears the line, Ctrl-D exits. From a pipe: one command a line."})
    static final class ShellCmd implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--show-secrets", description = "Show values under /registry/secrets/ (redacted by default).")
        boolean showSecrets;

        @Option(names = "--no-index", description = NO_INDEX)
        boolean noIndex;

        @Parameters(paramLabel = "PATH", description = "A WAL file, an etcd db or data directory, or a kine state.db.")
        Path path;

        @Override
        public Integer call() {
            return run(spec.commandLine().getOut(), spec.commandLine().getErr());
        }

        /** The shell over {@code path}: what picocli and the plain parse ({@link PlainArgs#shell}) call. */
        int run(PrintWriter out, PrintWriter err) {
            boolean tty = System.console() != null;
            return withIndex("waldoctor shell", path, err, tty, noIndex, x -> {
                ShellContext ctx = new ShellContext(x, showSecrets);
                if (!tty) {
                    int failed = Shell.piped(ctx, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out, err);
                    return failed == 0 ? ExitCode.OK.code() : ExitCode.NOT_FOUND.code();
                }
                ShellHistory.Place history = ShellHistory.open(System.getenv());
                if (history.problem() != null) {
                    err.println("waldoctor: " + history.problem());
                    err.flush();
                }
                try (Terminal t = TerminalBuilder.builder().system(true).build()) {
                    Shell.interactive(ctx, t, history.file());
                }
                return ExitCode.OK.code();
            });
        }
    }

    /** {@code records PATH --follow [--from OFFSET] [--idle-exit S]}: the log is followed, not loaded. */
    static int followRecords(Path path, List<String> words, String name, PrintWriter out, PrintWriter err) {
        Args a = Args.parse(words, java.util.Set.of("--from", "--limit", "--idle-exit"), java.util.Set.of("--follow"));
        if (a.error() != null || !a.positional().isEmpty()) {
            err.println(name + ": " + (a.error() != null ? a.error() : "usage: waldoctor records PATH --follow [--from OFFSET] [--idle-exit S]"));
            return ExitCode.USAGE.code();
        }
        double idle;
        try {
            idle = a.get("--idle-exit") == null ? 0 : Double.parseDouble(a.get("--idle-exit"));
        } catch (NumberFormatException e) {
            idle = -1;
        }
        long from = a.number("--from", -1);
        if (idle < 0 || (a.get("--from") != null && from < 0)) {
            err.println(name + ": --idle-exit takes seconds and --from an offset, 0 or more");
            return ExitCode.USAGE.code();
        }
        return RecordsFollow.run(path, from, idle, out, err);
    }

    /** One command of the table, run once: {@code waldoctor get PATH KEY [--rev R] [-w json|table]}. */
    @Command(mixinStandardHelpOptions = true)
    static final class OneShot implements Callable<Integer> {
        private final ShellCommand command;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--show-secrets", description = "Show values under /registry/secrets/.")
        boolean showSecrets;

        @Option(names = "--no-index", description = NO_INDEX)
        boolean noIndex;

        @Mixin
        WriteOut writeOut;

        @Parameters(paramLabel = "PATH ARGS", arity = "1..*", description = {"A WAL file or data directory (or an etcd or kine db), then the "
                + "command's arguments; its options go anywhere (waldoctor get --rev 5 PATH KEY)."})
        List<String> all = new ArrayList<>();

        OneShot(ShellCommand command) {
            this.command = command;
        }

        /** The command this one-shot runs (the shell's, by name). */
        String name() {
            return command.name();
        }

        @Override
        public Integer call() {
            return run(spec.commandLine().getOut(), spec.commandLine().getErr());
        }

        /** The one-shot over its words: what picocli and the plain parse ({@link PlainArgs#get}) call. */
        int run(PrintWriter out, PrintWriter err) {
            if (writeOut == null) writeOut = WriteOut.of(OutputFormat.SIMPLE, false);
            String name = "waldoctor " + command.name();
            if (writeOut.check(name, err, StructuredOutput.formats(command.name())) != null) return ExitCode.USAGE.code();
            // PATH is the first word that is neither one of the command's options nor an option's value, as etcdctl reads its options.
            List<String> words = new ArrayList<>(all);
            int at = Commands.firstPositional(command.name(), words);
            if (at < 0) {
                err.println(name + ": usage: waldoctor " + command.usage().replaceFirst(" ", " PATH ").replaceFirst("^" + command.name() + "$", command.name() + " PATH"));
                return ExitCode.USAGE.code();
            }
            Path path = Path.of(words.remove(at));
            if (command.name().equals("records") && words.contains("--follow")) return followRecords(path, words, name, out, err);
            return withIndex(name, path, err, false, noIndex, x -> {
                int code = answer(x, words, name, out, err);
                code = STATE_READS.contains(command.name()) ? partial(name, path, x.account(), err, code) : code;
                // The answer is out before the close waits for a first open's index to be saved.
                out.flush();
                err.flush();
                return code;
            });
        }

        private int answer(StoreHistory x, List<String> words, String name, PrintWriter out, PrintWriter err) {
            ShellContext ctx = new ShellContext(x, showSecrets);
            if (writeOut.format() != OutputFormat.SIMPLE) return StructuredOutput.run(command.name(), ctx, words, writeOut.format(), out, err);
            List<String> line = new ArrayList<>();
            line.add(command.name());
            line.addAll(words);
            // Answers on stdout, errors on stderr as "waldoctor get: …", in every format.
            ShellOut answers = new ShellOut(out, err, name + ": ");
            ShellCommand.Outcome o = Commands.execute(ctx, line, answers);
            answers.flush();
            out.flush();
            return switch (o) {
                case ERROR -> ExitCode.NOT_FOUND.code();
                case USAGE -> ExitCode.USAGE.code();
                default -> ExitCode.OK.code();
            };
        }
    }

    /** The commands whose answer is the store's state (what damage can take a part of); records, hexdump, damage show the damage itself. */
    static final java.util.Set<String> STATE_READS = java.util.Set.of("get", "range", "history", "at", "diff", "leases", "lease");

    /**
     * A partial answer never looks whole: an answer read from a damaged store (what its damage held is not in it) is
     * followed by one line on stderr saying so, and exits 3, the damage's code; a torn tail is what the store drops at
     * its start (the answer is what it would serve), a usage error stays one.
     */
    static int partial(String name, Path path, dev.walkit.format.account.Account a, PrintWriter err, int code) {
        if (code == ExitCode.USAGE.code() || a.verdict() == dev.walkit.format.assess.Assessment.Verdict.HEALTHY
                || a.verdict() == dev.walkit.format.assess.Assessment.Verdict.TORN_TAIL) return code;
        err.println(name + ": " + path + " is damaged (" + dev.walkit.cli.render.AccountText.damageSummary(a)
                + "): this answer lacks what the damage held; `waldoctor diagnose " + path + "` for the report");
        err.flush();
        return ExitCode.DAMAGE.code();
    }

    /** This machine's name, for a page that names where its input was read ("node-3:/var/lib/…"). */
    static String host() {
        try {
            String h = java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!h.isEmpty()) return h;
        } catch (IOException | RuntimeException e) {
            // not Linux: the resolver's name
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /** A shell command's help as a sentence for --help: capitalised, ended with a full stop. */
    static String sentence(String help) {
        String h = help.strip();
        if (h.isEmpty()) return h;
        h = Character.toUpperCase(h.charAt(0)) + h.substring(1);
        return h.matches("(?s).*[.):?!]$") ? h : h + ".";
    }
}
