package dev.walkit.verify;

import dev.walkit.format.pass.Level;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PassReport;
import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code walverify}: streaming verification of a WAL for runbooks and CI. */
@Command(name = "walverify", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        subcommands = picocli.AutoComplete.GenerateCompletion.class,
        description = {"Verify a store without modifying it: a WAL file (or a data directory's wal), etcd's db (a snapshot, "
                + "or a data directory's member/snap/db) or kine's SQLite state.db.",
                "Levels: frame = header sanity + CRC (a db: its pages); decode (default) = also the KeyValue decode and header "
                + "consistency (a db: every revision's record);",
                "semantic = also the replay rules: revision order, transactions, create_revision/version, snapshot prefix;",
                "values = also every stored Kubernetes value: its protobuf envelope and framing, its JSON, no sector of zeros."})
public final class WalVerify implements Callable<Integer> {
    /** The JSON schema version of --json and --jsonl. */
    public static final String SCHEMA = "walkit.walverify/v1";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--level", paramLabel = "frame|decode|semantic|values", description = "How deep to look (default: ${DEFAULT-VALUE}).",
            defaultValue = "decode", converter = LevelConverter.class, completionCandidates = LevelLabels.class)
    Level level;

    @Mixin
    WriteOut writeOut;

    @Option(names = "--jsonl", description = "Findings as JSON lines as they are found, then a summary line.")
    boolean jsonl;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing; the exit code tells.")
    boolean quiet;

    @Option(names = "--follow", description = {"Follow a live WAL as it grows (tail -f): each damaged span and finding printed as it is found "
            + "(--jsonl: a JSON line each), at the semantic level, until SIGINT or SIGTERM (or --idle-exit); then the report of all that was "
            + "read, with the exit code of the whole log. A record cut short at the end is a write in progress until it stays so for "
            + "--torn-after; a file replaced (a compaction's rename) is followed on past the revisions read."})
    boolean follow;

    @Option(names = "--idle-exit", paramLabel = "SECONDS", defaultValue = "0",
            description = "With --follow: stop once the file has not grown for SECONDS (0: never; default 0).")
    double idleExit;

    @Option(names = "--torn-after", paramLabel = "SECONDS", defaultValue = "5",
            description = "With --follow: a record cut short at the end is read as a torn tail once it has stayed so this long (default 5).")
    double tornAfter;

    @Parameters(paramLabel = "PATH", description = "A WAL file or a directory holding 'wal'; an etcd db or data directory; a kine state.db.")
    Path path;

    public static void main(String[] args) {
        // The plain command lines of runbooks and CI skip building picocli's model (≈ 0.25 s of a run);
        // anything else, errors included, is picocli's.
        // bin/_cds: the same check of the other stores first, so that their classes are archived too.
        dev.walkit.cli.CdsTraining.alsoRead(args, a -> {
            WalVerify w = PlainArgs.parse(a);
            return w == null ? null : w.runOrInternalError(dev.walkit.cli.CdsTraining.discard(), dev.walkit.cli.CdsTraining.discard());
        });
        WalVerify plain = PlainArgs.parse(args);
        Cli.exit("walverify", plain != null ? plain.runOrInternalError(Cli.stdout(), Cli.stderr())
                : Cli.run(new WalVerify(), args));
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return Cli.commandLine(new WalVerify(), out, err);
    }

    static final class LevelConverter extends dev.walkit.cli.Converter<Level> {
        @Override
        protected Level parse(String s) {
            Level l = Level.named(s);
            if (l == null) throw new IllegalArgumentException("'" + s + "' is not a level (frame, decode, semantic, values)");
            return l;
        }
    }

    @Override
    public Integer call() {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** {@link #run}, with an unexpected exception reported as Cli reports it: one line, exit 70. */
    int runOrInternalError(PrintWriter out, PrintWriter err) {
        try {
            return run(out, err);
        } catch (RuntimeException e) {
            return Cli.internalError("walverify", e, err);
        }
    }

    /** Verifies {@link #path} as the options say, prints the report; returns the exit code. */
    int run(PrintWriter out, PrintWriter err) {
        if (writeOut.check("walverify", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        OutputFormat format = writeOut.format();
        if (jsonl && format != OutputFormat.SIMPLE) {
            err.println("walverify: --jsonl and -w " + format.label() + " exclude each other");
            return ExitCode.USAGE.code();
        }
        Pass.Listener streaming = !jsonl || quiet ? null : new Pass.Listener() {
            @Override
            public void damage(DamageLocator.Located d) {
                out.println(JsonPrinter.damage(new Json(), d).toString());
                out.flush();
            }

            @Override
            public void finding(Finding f) {
                out.println(JsonPrinter.finding(new Json(), f).toString());
                out.flush();
            }

            @Override
            public void storeDamage(String store, String detail) {
                out.println(JsonPrinter.storeDamage(new Json(), store, detail).toString());
                out.flush();
            }
        };
        // A bar on the terminal for a large file, with the human report only (never with JSON or in a pipe).
        long size;
        try {
            Pass.Input store = Pass.input(path);
            size = store.kind() == dev.walkit.format.account.Store.Kind.WAL ? java.nio.file.Files.size(store.file()) : 0;
        } catch (IOException e) {
            size = 0; // the verification names it
        }
        dev.walkit.cli.Progress bar = dev.walkit.cli.Progress.of("verifying", size, !quiet && !jsonl && format == OutputFormat.SIMPLE);
        java.util.function.LongConsumer read = bar.adder();
        Pass.Listener listener = read == null ? streaming : new Pass.Listener() {
            @Override
            public java.util.function.LongConsumer bytesRead() {
                return read;
            }
        };
        if (follow) return follow(out, err, format, streaming);
        PassReport r;
        try {
            r = Pass.read(path, level, listener);
        } catch (dev.walkit.format.NotAWalException e) {
            if (!quiet) err.println("walverify: " + e.getMessage());
            return ExitCode.UNREADABLE.code();
        } catch (IOException | java.io.UncheckedIOException e) {
            if (!quiet) err.println("walverify: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        } finally {
            bar.close(); // the line cleared before anything else is printed
        }
        ExitCode code = exitCode(r);
        if (quiet) return code.code();
        if (jsonl) out.println(JsonPrinter.summary(r, code, false));
        else VerifyPrinter.of(format).print(out, r, code);
        out.flush();
        return code.code();
    }

    /**
     * {@code --follow}: each damage and finding as it is found (a line, or a JSON line with --jsonl), then the report.
     * SIGINT and SIGTERM end the follow: the report is printed and the process exits with the log's exit code.
     */
    private int follow(PrintWriter out, PrintWriter err, OutputFormat format, Pass.Listener streaming) {
        if (idleExit < 0 || tornAfter < 0) {
            err.println("walverify: --idle-exit and --torn-after take seconds, 0 or more");
            return ExitCode.USAGE.code();
        }
        // Lines as found in text (or JSON lines with --jsonl); with -w json or table, the one document at the end only.
        Pass.Listener lines = quiet || (streaming == null && format != OutputFormat.SIMPLE) ? new Pass.Listener() { }
                : streaming != null ? streaming : new Pass.Listener() {
            @Override
            public void damage(DamageLocator.Located d) {
                dev.walkit.cli.render.AccountText.span(out, "", d);
                out.flush();
            }

            @Override
            public void finding(Finding f) {
                dev.walkit.cli.render.AccountText.finding(out, "", f);
                out.flush();
            }
        };
        try (dev.walkit.cli.StopOnSignal signal = new dev.walkit.cli.StopOnSignal("walverify-follow")) {
            try {
                PassReport r = FollowVerify.run(path, lines, (long) (idleExit * 1e9), (long) (tornAfter * 1e9), signal::stopped, new FollowVerify.Notes() {
                    @Override
                    public void note(String line) {
                        if (!quiet && !jsonl && format == OutputFormat.SIMPLE) {
                            out.println(line);
                            out.flush();
                        }
                    }

                    @Override
                    public void started(String line) {
                        if (quiet) return;
                        err.println(line);
                        err.flush();
                    }
                });
                ExitCode code = exitCode(r);
                if (!quiet) {
                    if (jsonl) out.println(JsonPrinter.summary(r, code, false));
                    else VerifyPrinter.of(format).print(out, r, code);
                    out.flush();
                }
                return signal.done(code.code());
            } catch (IOException | java.io.UncheckedIOException e) {
                if (!quiet) err.println("walverify: " + dev.walkit.cli.IoErrors.describe(e));
                return signal.done(ExitCode.UNREADABLE.code());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return signal.done(ExitCode.SOFTWARE.code());
            }
        }
    }

    static ExitCode exitCode(PassReport r) {
        return ExitCode.of(r.verdictOf());
    }

    /** Completion's values for --level: the names as the converter takes them. */
    static final class LevelLabels extends dev.walkit.cli.Candidates {
        LevelLabels() {
            super(java.util.Arrays.stream(Level.values()).map(l -> l.name().toLowerCase(java.util.Locale.ROOT)).toList());
        }
    }
}
