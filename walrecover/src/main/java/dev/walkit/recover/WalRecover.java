package dev.walkit.recover;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.CrcRange;
import dev.walkit.format.policy.RecoveryPolicy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;

/** {@code walrecover}: rebuild state and lease metadata and emit a clean recovery WAL, atomically. */
@Command(name = "walrecover", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        subcommands = picocli.AutoComplete.GenerateCompletion.class,
        description = {"Rebuild the state and lease metadata of a WAL (v1 or v2) and write a clean recovery WAL to DIR/wal, "
                + "with DIR/leases.json. The input is never modified; the output appears atomically, verified, or not at all."})
public final class WalRecover implements Callable<Integer>, Cli.Described {
    public static final String SCHEMA = "walkit.walrecover/v1";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--policy", defaultValue = "salvage", paramLabel = "POLICY",
            description = "Recovery policy: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).", converter = dev.walkit.cli.Policies.Parse.class,
            completionCandidates = dev.walkit.cli.Policies.Labels.class)
    RecoveryPolicy policy;

    /** The policies' sentence, from {@link RecoveryPolicy#ALL}: a new policy is in the help without a word written here. */
    @Override
    public void describe(CommandLine.Model.CommandSpec spec) {
        java.util.List<String> lines = new java.util.ArrayList<>(java.util.List.of(spec.usageMessage().description()));
        lines.add("Policies (docs/format.md §9): " + RecoveryPolicy.describeAll() + ". A refusal writes nothing (exit 3).");
        spec.usageMessage().description(lines.toArray(new String[0]));
    }

    @Option(names = "--to-revision", paramLabel = "R", description = "Keep only transactions with revision <= R (point-in-time recovery).")
    Long toRevision;

    @Option(names = "--form", paramLabel = "auto|history|snapshot", defaultValue = "auto", converter = FormConverter.class, completionCandidates = FormLabels.class,
            description = {"The output's form (default: ${DEFAULT-VALUE}): the history (the kept records as they are) when they obey the rules "
                    + "of a healthy log as they stand, else a snapshot of the final state, saying why; history: always the history, "
                    + "rule findings listed in the report; snapshot: a snapshot prefix of the final state (marker + sorted live keys)."})
    RecoveryOptions.Form form;

    @Option(names = "--compact", description = "The same as --form snapshot.")
    boolean compact;

    @Option(names = "--accept-crc", paramLabel = "payload-only|skip-flags", converter = CrcConverter.class, completionCandidates = CrcLabels.class,
            description = "The crc range writer bug: accept records whose CRC matches this range, and write them with a correct CRC.")
    CrcRange acceptCrc;

    @Option(names = "--lease-ttl", paramLabel = "SECONDS", defaultValue = "3600", description = "TTL of rebuilt leases (default: ${DEFAULT-VALUE}).")
    long leaseTtl;

    @Option(names = "--dry-run", description = "Write nothing; report, and preview the keys the dropped transactions would have changed.")
    boolean dryRun;

    @Mixin
    WriteOut writeOut;

    @Option(names = "--report", paramLabel = "FILE", description = "Also write the report as JSON to FILE.")
    Path report;

    @Option(names = "--force", description = "Write into the input's own directory or over an existing DIR/wal; the old file is kept as wal.broken.<timestamp>.")
    boolean force;

    @Option(names = "--checksum", paramLabel = "crc32c|sha256", defaultValue = "crc32c", converter = ChecksumConverter.class, completionCandidates = ChecksumLabels.class,
            description = "The output's checksum in the report (default: ${DEFAULT-VALUE}), as PostgreSQL's backup manifests give it.")
    OutputChecksum checksum;

    @Option(names = "--allow-empty", description = "When no complete transaction survives, write an empty WAL (without it, that is a refusal, exit 3).")
    boolean allowEmpty;

    @Option(names = "--out", paramLabel = "DIR", description = "Output data directory (created if missing).")
    Path out;

    @Option(names = "--out-format", paramLabel = "wal|kine|etcd-db", completionCandidates = OutFormats.class,
            description = {"The output's store (default: the input's own): wal (DIR/wal and DIR/leases.json), etcd-db (DIR/db: etcd's "
                    + "backend db, its revisions, compact revision and leases kept; etcdctl snapshot restore DIR/db --skip-hash-check "
                    + "restores it), kine (DIR/state.db, which kine serves: the live keys at their revisions, leases as TTLs). Any store is read as its "
                    + "history (the pass's WAL form)."})
    String outFormat;

    @Option(names = "--bump-revision", paramLabel = "N", description = {"An etcd db output's revision N past the recovered one (with --mark-compacted, "
            + "as etcdutl 3.5's snapshot restore): clients that saw revisions the damage lost never see the store go back; a watch from "
            + "before it is told the history is compacted and lists again."})
    long bumpRevision;

    @Option(names = "--mark-compacted", description = "With --bump-revision: the bumped revision is the compaction (required with it, as etcdutl).")
    boolean markCompacted;

    static final class OutFormats extends dev.walkit.cli.Candidates {
        OutFormats() {
            super(java.util.List.of("wal", "kine", "etcd-db"));
        }
    }

    @Parameters(paramLabel = "PATH", description = "The damaged WAL file or its data directory; or an etcd db (or data directory), or kine's state.db.")
    Path path;

    public static void main(String[] args) {
        int code = Cli.run(new WalRecover(), args);
        dev.walkit.cli.Timing.mark("exit");
        Cli.exit("walrecover", code);
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return Cli.commandLine(new WalRecover(), out, err);
    }

    static final class ChecksumConverter extends dev.walkit.cli.Converter<OutputChecksum> {
        @Override
        protected OutputChecksum parse(String s) {
            return OutputChecksum.fromLabel(s);
        }
    }

    static final class FormConverter extends dev.walkit.cli.Converter<RecoveryOptions.Form> {
        @Override
        protected RecoveryOptions.Form parse(String s) {
            return RecoveryOptions.Form.fromLabel(s);
        }
    }

    /** Completion's values, from the types that parse them (lowercase labels, as the converters take them). */
    static final class CrcLabels extends dev.walkit.cli.Candidates {
        CrcLabels() {
            super(java.util.Arrays.stream(CrcRange.values()).filter(c -> c != CrcRange.STANDARD).map(CrcRange::label).toList());
        }
    }

    static final class FormLabels extends dev.walkit.cli.Candidates {
        FormLabels() {
            super(java.util.Arrays.stream(RecoveryOptions.Form.values()).map(RecoveryOptions.Form::label).toList());
        }
    }

    static final class ChecksumLabels extends dev.walkit.cli.Candidates {
        ChecksumLabels() {
            super(java.util.Arrays.stream(OutputChecksum.values()).map(OutputChecksum::label).toList());
        }
    }

    static final class CrcConverter extends dev.walkit.cli.Converter<CrcRange> {
        @Override
        protected CrcRange parse(String s) {
            if (s.equals(CrcRange.STANDARD.label())) throw new IllegalArgumentException("'standard' is the correct range; name a buggy one (payload-only, skip-flags)");
            return CrcRange.fromLabel(s);
        }
    }

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (compact && form == RecoveryOptions.Form.HISTORY) {
            err.println("walrecover: --compact is --form snapshot: it excludes --form history");
            return ExitCode.USAGE.code();
        }
        if (outFormat != null && !new OutFormats().contains(outFormat)) {
            err.println("walrecover: --out-format '" + outFormat + "' is not a store (wal, kine, etcd-db)");
            return ExitCode.USAGE.code();
        }
        dev.walkit.format.pass.Pass.Input in = storeOf(path);
        // The output's store: --out-format's (a label checked above), else the input's own.
        dev.walkit.format.account.Store.Kind store = in == null ? dev.walkit.format.account.Store.Kind.WAL : in.kind();
        for (dev.walkit.format.account.Store.Kind k : dev.walkit.format.account.Store.Kind.values()) if (k.label().equals(outFormat)) store = k;
        RecoveryOptions o = new RecoveryOptions(path, out, policy, toRevision == null ? Long.MAX_VALUE : toRevision,
                compact ? RecoveryOptions.Form.SNAPSHOT : form, acceptCrc, leaseTtl, dryRun, force, allowEmpty, checksum, store, bumpRevision);
        if (bumpRevision > 0 && !markCompacted) {
            err.println("walrecover: --bump-revision needs --mark-compacted (as etcdutl's snapshot restore): the revisions skipped are compacted");
            return ExitCode.USAGE.code();
        }
        if (writeOut.check("walrecover", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        String invalid = o.validate();
        if (invalid == null && report != null) invalid = reportPathProblem(report);
        if (invalid != null) {
            err.println("walrecover: " + invalid);
            return ExitCode.USAGE.code();
        }
        RecoveryReport r;
        dev.walkit.format.pass.Pass.Form form = null;
        try {
            // Another store than a WAL is read as its WAL form (the pass's), the account speaking of the store.
            if (in != null && !in.isWal()) form = dev.walkit.format.pass.Pass.form(path);
            r = Recovery.run(o, Instant.now(), writeOut.format() == OutputFormat.SIMPLE, form);
        } catch (Recovery.Refused e) {
            err.println("walrecover: " + e.getMessage());
            return e.usage() ? ExitCode.USAGE.code() : ExitCode.DAMAGE.code();
        } catch (IOException | UncheckedIOException e) {
            err.println("walrecover: " + dev.walkit.cli.IoErrors.writing(dev.walkit.cli.IoErrors.describe(e), dryRun ? null : out));
            return ExitCode.UNREADABLE.code();
        } finally {
            if (form != null) {
                try {
                    form.close();
                } catch (IOException e) {
                    // a temporary file left behind: the report stands
                }
            }
        }
        RecoveryPrinter.of(writeOut.format()).print(stdout, r);
        stdout.flush();
        if (report != null) {
            try {
                Files.writeString(report, JsonPrinter.json(r) + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("walrecover: " + (r.output() != null ? r.output() + " was written and verified, but " : "") + "the report could not be written: "
                        + dev.walkit.cli.IoErrors.describe(e));
                return ExitCode.UNREADABLE.code();
            }
        }
        if (r.refused() != null) {
            err.println("walrecover: refused: " + r.refused());
            return ExitCode.DAMAGE.code();
        }
        return ExitCode.OK.code();
    }

    /** The store {@code path} is (the pass's sniffing), or null when the pass cannot place it (the recovery's read says why). */
    static dev.walkit.format.pass.Pass.Input storeOf(Path path) {
        try {
            return dev.walkit.format.pass.Pass.input(path);
        } catch (IOException e) {
            return null;
        }
    }

    /** Why --report FILE cannot be written, checked before any work (a recovery should not end in a failed report), or null. */
    static String reportPathProblem(Path report) {
        Path abs = report.toAbsolutePath();
        Path parent = abs.getParent();
        if (Files.isDirectory(abs)) return "--report " + report + ": is a directory";
        if (parent == null || !Files.isDirectory(parent)) return "--report " + report + ": no such directory " + parent;
        if (!Files.isWritable(parent) && !Files.isWritable(abs)) return "--report " + report + ": cannot write in " + parent;
        return null;
    }
}
