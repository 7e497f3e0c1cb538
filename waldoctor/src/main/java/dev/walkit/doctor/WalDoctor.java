package dev.walkit.doctor;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.KeyValue;
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
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code waldoctor}: the incident report, an interactive shell, and the shell's commands one-shot. */
@Command(name = "waldoctor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"The first thing to run during an incident: what this WAL is, what is wrong with it, what it costs,",
                "and what to run next (diagnose); then look around (shell, or one command at a time)."},
        subcommands = {WalDoctor.Diagnose.class, WalDoctor.ShellCmd.class, picocli.AutoComplete.GenerateCompletion.class})
public final class WalDoctor implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(Cli.stdout(), Cli.stderr(), args));
    }

    /** What tests call: the tool with its one-shot commands added from the command table. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return commandLine(out, err).execute(args);
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new WalDoctor());
        for (ShellCommand c : Commands.table().values()) {
            if (c.name().equals("quit") || c.name().equals("help")) continue;
            CommandLine sub = new CommandLine(new OneShot(c));
            sub.setUnmatchedOptionsArePositionalParams(true);
            sub.getCommandSpec().usageMessage().description(c.help(), "Shell form: " + c.usage());
            cl.addSubcommand(c.name(), sub);
        }
        return Cli.configure(cl, out, err);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE.code();
    }

    /** What a command does with the loaded log; returns the exit code. */
    @FunctionalInterface
    interface WithIndex {
        int run(LogIndex x) throws IOException;
    }

    /** Loads {@code path}, runs {@code action}, closes; unreadable input is exit 4 with one line. */
    static int withIndex(Path path, PrintWriter err, boolean progress, WithIndex action) {
        try (LogIndex x = load(path, err, progress)) {
            return action.run(x);
        } catch (IOException | UncheckedIOException e) {
            err.println("waldoctor: " + e.getMessage());
            return ExitCode.UNREADABLE.code();
        }
    }

    static LogIndex load(Path path, PrintWriter err, boolean progress) throws IOException {
        boolean tty = progress && System.console() != null && java.nio.file.Files.size(dev.walkit.format.Wal.resolve(path)) > (64L << 20);
        return LogIndex.load(path, tty ? off -> {
            err.printf("\rloading %s: %,d MiB", path, off >> 20);
            err.flush();
        } : null);
    }

    @Command(name = "diagnose", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "The incident report; exit codes as walverify's.")
    static final class Diagnose implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        WriteOut writeOut;

        @Parameters(paramLabel = "PATH", description = "A WAL file or data directory.")
        Path path;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            if (writeOut.check("waldoctor diagnose", err, OutputFormat.values()) != null) return ExitCode.USAGE.code();
            OutputFormat format = writeOut.format();
            return withIndex(path, err, format == OutputFormat.SIMPLE, x -> {
                if (x.records() == 0 && x.damage().stream().noneMatch(l -> l.span().kind() == dev.walkit.format.DamageKind.CRC_RANGE_BUG)) {
                    err.println("waldoctor: " + path + ": not a WAL: no valid record");
                    return ExitCode.UNREADABLE.code();
                }
                Diagnosis d = new Diagnosis(x);
                switch (format) {
                    case JSON -> out.println(d.json());
                    case TABLE -> d.table(out);
                    default -> d.human(out);
                }
                out.flush();
                return d.exitCode().code();
            });
        }
    }

    @Command(name = "shell", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = {"Load the log once, then answer commands ('help' lists them).",
            "On a terminal: completion (Tab), history, Ctrl-C clears the line, Ctrl-D exits. From a pipe: one command a line."})
    static final class ShellCmd implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--show-secrets", description = "Show values under /registry/secrets/ (redacted by default).")
        boolean showSecrets;

        @Parameters(paramLabel = "PATH", description = "A WAL file or data directory.")
        Path path;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            boolean tty = System.console() != null;
            return withIndex(path, err, tty, x -> {
                if (tty) err.print("\r\033[K");
                ShellContext ctx = new ShellContext(x, showSecrets);
                if (!tty) {
                    int failed = Shell.piped(ctx, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
                    return failed == 0 ? ExitCode.OK.code() : ExitCode.NOT_FOUND.code();
                }
                try (Terminal t = TerminalBuilder.builder().system(true).build()) {
                    Path history = Paths.get(System.getProperty("user.home"), ".waldoctor_history");
                    Shell.interactive(ctx, t, history);
                }
                return ExitCode.OK.code();
            });
        }
    }

    /** One command of the table, run once: {@code waldoctor get PATH KEY [--rev R] [--json]}. */
    @Command(mixinStandardHelpOptions = true)
    static final class OneShot implements Callable<Integer> {
        private final ShellCommand command;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--show-secrets", description = "Show values under /registry/secrets/.")
        boolean showSecrets;

        @Mixin
        WriteOut writeOut;

        @Parameters(index = "0", paramLabel = "PATH", description = "A WAL file or data directory.")
        Path path;

        @Parameters(index = "1..*", paramLabel = "ARGS", arity = "0..*", description = "The command's arguments and options.")
        List<String> words = new ArrayList<>();

        OneShot(ShellCommand command) {
            this.command = command;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            boolean get = command.name().equals("get");
            String name = "waldoctor " + command.name();
            if ((get ? writeOut.check(name, err, OutputFormat.SIMPLE, OutputFormat.JSON) : writeOut.check(name, err, OutputFormat.SIMPLE)) != null) {
                return ExitCode.USAGE.code();
            }
            return withIndex(path, err, false, x -> {
                ShellContext ctx = new ShellContext(x, showSecrets);
                if (writeOut.format() == OutputFormat.JSON) return getJson(ctx, out, err);
                List<String> line = new ArrayList<>();
                line.add(command.name());
                line.addAll(words);
                ShellCommand.Outcome o = Commands.execute(ctx, line, out);
                out.flush();
                return o == ShellCommand.Outcome.ERROR ? ExitCode.NOT_FOUND.code() : ExitCode.OK.code();
            });
        }

        private int getJson(ShellContext ctx, PrintWriter out, PrintWriter err) {
            Args a = Args.parse(words, java.util.Set.of("--rev"), java.util.Set.of());
            long rev = a.number("--rev", Long.MAX_VALUE);
            if (a.error() != null || a.positional().size() != 1) {
                err.println("waldoctor get: usage: get PATH KEY [--rev R] [--json]");
                return ExitCode.USAGE.code();
            }
            String key = a.positional().get(0);
            if (rev < ctx.index.state().compactRevision()) {
                err.println("waldoctor get: revision " + rev + " is compacted");
                return ExitCode.NOT_FOUND.code();
            }
            KeyValue kv = ctx.index.get(key, rev);
            if (kv == null) {
                err.println("waldoctor get: key not found: " + key);
                return ExitCode.NOT_FOUND.code();
            }
            boolean redact = key.startsWith(ValueView.SECRETS) && !showSecrets;
            Json j = new Json().beginObject().field("key", key).field("create_revision", kv.createRevision()).field("mod_revision", kv.modRevision())
                    .field("version", kv.version()).field("lease", kv.lease()).field("value_bytes", kv.value().length);
            if (redact) j.field("value_redacted", true);
            else j.field("value_hex", HexFormat.of().formatHex(kv.value()));
            ValueView.K8sObject o = redact ? null : ValueView.k8s(kv.value());
            if (o != null) {
                j.name("kubernetes").beginObject().field("apiVersion", o.apiVersion()).field("kind", o.kind()).field("namespace", o.namespace())
                        .field("name", o.name()).endObject();
            }
            out.println(j.endObject());
            out.flush();
            return ExitCode.OK.code();
        }
    }
}
