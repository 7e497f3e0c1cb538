package dev.walkit.verify;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.Table;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Meaning;
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
        description = {"Verify a WAL file (or a data directory's wal) without modifying it.",
                "Levels: frame = header sanity + CRC; decode (default) = also the KeyValue decode and header consistency;",
                "semantic = also the replay rules: revision order, transactions, create_revision/version, snapshot prefix."})
public final class WalVerify implements Callable<Integer> {
    /** The JSON schema version of --json and --jsonl. */
    public static final String SCHEMA = "walkit.walverify/v1";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--level", paramLabel = "frame|decode|semantic", description = "How deep to look (default: ${DEFAULT-VALUE}).",
            defaultValue = "decode", converter = LevelConverter.class)
    VerifyLevel level;

    @Mixin
    WriteOut writeOut;

    @Option(names = "--jsonl", description = "Findings as JSON lines as they are found, then a summary line.")
    boolean jsonl;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing; the exit code tells.")
    boolean quiet;

    @Parameters(paramLabel = "PATH", description = "A WAL file, or a data directory holding 'wal'.")
    Path path;

    public static void main(String[] args) {
        // The plain command lines of runbooks and CI skip building picocli's model (≈ 0.25 s of a run);
        // anything else, errors included, is picocli's.
        WalVerify plain = PlainArgs.parse(args);
        Cli.exit("walverify", plain != null ? plain.runOrInternalError(new PrintWriter(System.out, true), new PrintWriter(System.err, true))
                : Cli.run(new WalVerify(), args));
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return Cli.commandLine(new WalVerify(), out, err);
    }

    static final class LevelConverter extends dev.walkit.cli.Converter<VerifyLevel> {
        @Override
        protected VerifyLevel parse(String s) {
            VerifyLevel l = VerifyLevel.named(s);
            if (l == null) throw new IllegalArgumentException("'" + s + "' is not a level (frame, decode, semantic)");
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
        if (writeOut.check("walverify", err, OutputFormat.values()) != null) return ExitCode.USAGE.code();
        OutputFormat format = writeOut.format();
        if (jsonl && format != OutputFormat.SIMPLE) {
            err.println("walverify: --jsonl and -w " + format.label() + " exclude each other");
            return ExitCode.USAGE.code();
        }
        Verifier.Listener streaming = !jsonl || quiet ? null : new Verifier.Listener() {
            @Override
            public void damage(DamageLocator.Located d) {
                out.println(damageJson(new Json(), d).toString());
                out.flush();
            }

            @Override
            public void finding(Finding f) {
                out.println(findingJson(new Json(), f).toString());
                out.flush();
            }
        };
        VerifyReport r;
        try {
            r = Verifier.verify(path, level, streaming);
        } catch (dev.walkit.format.NotAWalException e) {
            if (!quiet) err.println("walverify: " + e.getMessage());
            return ExitCode.UNREADABLE.code();
        } catch (IOException | java.io.UncheckedIOException e) {
            if (!quiet) err.println("walverify: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
        ExitCode code = exitCode(r);
        if (quiet) return code.code();
        if (jsonl) out.println(summaryJson(r, code, false));
        else if (format == OutputFormat.JSON) out.println(summaryJson(r, code, true));
        else if (format == OutputFormat.TABLE) table(out, r, code);
        else human(out, r, code);
        out.flush();
        return code.code();
    }

    static ExitCode exitCode(VerifyReport r) {
        return r.healthy() ? ExitCode.OK : r.tailOnly() ? ExitCode.TAIL_ONLY : ExitCode.DAMAGE;
    }

    static Json damageJson(Json j, DamageLocator.Located d) {
        DamageSpan s = d.span();
        j.beginObject().field("type", "damage").field("offset", s.offset()).field("length", s.length()).field("kind", s.kind().label());
        j.field("detail", s.detail());
        if (s.storedCrc() >= 0) j.field("stored_crc", String.format("%08x", s.storedCrc())).field("computed_crc", String.format("%08x", s.computedCrc()));
        if (s.crcRange() != null) j.field("crc_range", s.crcRange().label()).field("records", s.records()).field("data_intact", true);
        j.fieldOrNull("revision_before", d.revisionBefore()).fieldOrNull("revision_after", d.revisionAfter());
        return j.field("meaning", Meaning.of(s.kind())).endObject();
    }

    static Json findingJson(Json j, Finding f) {
        return j.beginObject().field("type", "finding").field("kind", f.kind().label()).field("offset", f.offset()).field("length", f.length())
                .fieldOrNull("revision", f.revision()).field("records_dropped", f.records()).field("detail", f.detail())
                .field("meaning", Meaning.of(f.kind())).endObject();
    }

    static String summaryJson(VerifyReport r, ExitCode code, boolean withLists) {
        Json j = new Json().beginObject().field("schema", SCHEMA);
        if (!withLists) j.field("type", "summary");
        j.field("path", r.path().toString()).field("format", r.format().label()).field("level", r.level().name().toLowerCase(java.util.Locale.ROOT))
                .field("bytes", r.bytes()).field("records", r.records()).field("transactions", r.transactions())
                .fieldOrNull("first_revision", r.firstRevision()).fieldOrNull("last_revision", r.lastRevision())
                .fieldOrNull("compact_revision", r.compactRevision()).fieldOrNull("live_keys", r.liveKeys())
                .fieldOrNull("tombstones", r.tombstones());
        j.name("leftover_compaction").value(r.leftoverCompaction() == null ? null : r.leftoverCompaction().toString());
        j.fieldOrNull("grew_to", r.grewTo());
        if (withLists) {
            j.name("damage").beginArray();
            for (DamageLocator.Located d : r.damage()) damageJson(j, d);
            j.endArray();
            j.name("findings").beginArray();
            for (Finding f : r.findings()) findingJson(j, f);
            j.endArray();
        } else {
            j.field("damage_count", r.damage().size()).field("finding_count", r.findings().size());
        }
        return j.field("verdict", r.verdict()).field("exit_code", code.code()).endObject().toString();
    }

    /** The note for a file that grew while it was read. */
    static String grewNote(VerifyReport r) {
        return String.format("  note: the file grew to %,d bytes while it was read (is the store running?): only the first %,d bytes were "
                + "verified, and a torn tail at their end may be a write in progress, not damage", r.grewTo(), r.bytes());
    }

    private static void human(PrintWriter out, VerifyReport r, ExitCode code) {
        out.printf("%s: WAL format %s, %,d bytes, level %s%n", r.path(), r.format().label(), r.bytes(), r.level().name().toLowerCase(java.util.Locale.ROOT));
        out.printf("  records %,d, transactions %,d, revisions %s..%s%s%n", r.records(), r.transactions(), rev(r.firstRevision()),
                rev(r.lastRevision()), r.compactRevision() >= 0 ? ", compact revision " + r.compactRevision() : "");
        if (r.liveKeys() >= 0) out.printf("  live keys %,d, tombstones %,d%n", r.liveKeys(), r.tombstones());
        if (r.leftoverCompaction() != null) out.printf("  note: leftover compaction %s: %s%n", r.leftoverCompaction(), Meaning.of(dev.walkit.format.DamageKind.LEFTOVER_COMPACTION));
        if (r.grewTo() >= 0) out.println(grewNote(r));
        for (DamageLocator.Located d : r.damage()) {
            DamageSpan s = d.span();
            out.printf("  %s at offset %,d, %,d bytes (between revisions %s and %s): %s%n    %s%n", s.kind().label(), s.offset(), s.length(),
                    rev(d.revisionBefore()), rev(d.revisionAfter()), s.describe(), Meaning.of(s.kind()));
        }
        for (Finding f : r.findings()) {
            out.printf("  %s at offset %,d (revision %s): %s%n    %s%n", f.kind().label(), f.offset(), rev(f.revision()), f.detail(), Meaning.of(f.kind()));
        }
        String verdict = switch (code) {
            case OK -> "healthy";
            case TAIL_ONLY -> "torn tail only: `walrecover --policy tolerate-tail --out DIR " + r.path() + "` repairs it";
            default -> "DAMAGED: see the findings above; `walverify --level semantic " + r.path() + "` adds the replay rules";
        };
        out.printf("verdict: %s (exit %d)%n", verdict, code.code());
    }

    /** -w table: the facts, then the damage and the findings, each a table; the verdict line last. */
    private static void table(PrintWriter out, VerifyReport r, ExitCode code) {
        Table facts = new Table("field", "value").row("path", r.path()).row("format", r.format().label())
                .row("level", r.level().name().toLowerCase(java.util.Locale.ROOT)).row("bytes", r.bytes()).row("records", r.records())
                .row("transactions", r.transactions()).row("first revision", opt(r.firstRevision())).row("last revision", opt(r.lastRevision()))
                .row("compact revision", opt(r.compactRevision())).row("live keys", opt(r.liveKeys())).row("tombstones", opt(r.tombstones()));
        if (r.leftoverCompaction() != null) facts.row("leftover compaction", r.leftoverCompaction());
        if (r.grewTo() >= 0) facts.row("grew while read to", r.grewTo());
        facts.print(out);
        Table damage = new Table("kind", "offset", "length", "rev before", "rev after", "detail");
        for (DamageLocator.Located d : r.damage()) {
            DamageSpan s = d.span();
            damage.row(s.kind().label(), s.offset(), s.length(), opt(d.revisionBefore()), opt(d.revisionAfter()), s.describe());
        }
        if (!damage.isEmpty()) damage.print(out);
        Table findings = new Table("finding", "offset", "revision", "detail");
        for (Finding f : r.findings()) findings.row(f.kind().label(), f.offset(), opt(f.revision()), f.detail());
        if (!findings.isEmpty()) findings.print(out);
        out.printf("verdict: %s (exit %d)%n", r.verdict(), code.code());
    }

    private static Long opt(long v) {
        return v < 0 ? null : v;
    }

    private static String rev(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }
}
