package dev.walkit.recover;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.Table;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
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
                + "with DIR/leases.json. The input is never modified; the output appears atomically, verified, or not at all.",
                "Policies (docs/format.md §9): salvage (default) keeps every complete transaction that survived; "
                + "point-in-time keeps everything before the first damage; tolerate-tail drops only damage at the tail; "
                + "absolute refuses any damage. A refusal writes nothing (exit 3)."})
public final class WalRecover implements Callable<Integer> {
    public static final String SCHEMA = "walkit.walrecover/v1";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--policy", defaultValue = "salvage", paramLabel = "salvage|point-in-time|tolerate-tail|absolute",
            description = "Recovery policy (default: ${DEFAULT-VALUE}).", converter = PolicyConverter.class)
    RecoveryPolicy policy;

    @Option(names = "--to-revision", paramLabel = "R", description = "Keep only transactions with revision <= R (point-in-time recovery).")
    Long toRevision;

    @Option(names = "--compact", description = "Write a snapshot prefix of the final state (marker + sorted live keys) instead of the full history.")
    boolean compact;

    @Option(names = "--accept-crc", paramLabel = "payload-only|skip-flags", converter = CrcConverter.class,
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

    @Option(names = "--out", paramLabel = "DIR", description = "Output data directory (created if missing).")
    Path out;

    @Parameters(paramLabel = "PATH", description = "The damaged WAL file, or its data directory.")
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

    static final class PolicyConverter extends dev.walkit.cli.Converter<RecoveryPolicy> {
        @Override
        protected RecoveryPolicy parse(String s) {
            return RecoveryPolicy.fromLabel(s);
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
        RecoveryOptions o = new RecoveryOptions(path, out, policy, toRevision == null ? Long.MAX_VALUE : toRevision, compact, acceptCrc,
                leaseTtl, dryRun, force);
        if (writeOut.check("walrecover", err, OutputFormat.values()) != null) return ExitCode.USAGE.code();
        String invalid = o.validate();
        if (invalid == null && report != null) invalid = reportPathProblem(report);
        if (invalid != null) {
            err.println("walrecover: " + invalid);
            return ExitCode.USAGE.code();
        }
        RecoveryReport r;
        try {
            r = Recovery.run(o, Instant.now());
        } catch (Recovery.Refused e) {
            err.println("walrecover: " + e.getMessage());
            return e.usage() ? ExitCode.USAGE.code() : ExitCode.DAMAGE.code();
        } catch (IOException | UncheckedIOException e) {
            err.println("walrecover: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
        switch (writeOut.format()) {
            case JSON -> stdout.println(json(r));
            case TABLE -> table(stdout, r);
            default -> human(stdout, r);
        }
        stdout.flush();
        if (report != null) {
            try {
                Files.writeString(report, json(r) + "\n", StandardCharsets.UTF_8);
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

    /** Why --report FILE cannot be written, checked before any work (a recovery should not end in a failed report), or null. */
    static String reportPathProblem(Path report) {
        Path abs = report.toAbsolutePath();
        Path parent = abs.getParent();
        if (Files.isDirectory(abs)) return "--report " + report + ": is a directory";
        if (parent == null || !Files.isDirectory(parent)) return "--report " + report + ": no such directory " + parent;
        if (!Files.isWritable(parent) && !Files.isWritable(abs)) return "--report " + report + ": cannot write in " + parent;
        return null;
    }

    /** Dropped transactions listed one by one in the text form; the rest are counted (a point-in-time recovery can drop millions). */
    static final int HUMAN_DROPPED = 20;

    static void human(PrintWriter out, RecoveryReport r) {
        RecoveryOptions o = r.options();
        out.printf("walrecover: %s, policy %s%s%n", r.input(), o.policy().label(), o.dryRun() ? " (dry run: nothing written)" : "");
        out.printf("  input: format %s, %,d bytes, %,d valid records%n", r.format() == null ? "-" : r.format().label(), r.inputBytes(), r.inputRecords());
        out.printf("  kept %,d transactions (%,d records); dropped %,d%n", r.keptTransactions(), r.keptRecords(), r.droppedTransactions());
        for (DamageSpan d : r.damage()) out.printf("  damaged bytes %,d..%,d (%,d bytes): %s%n", d.offset(), d.end(), d.length(), d.kind().label());
        int shown = 0;
        for (RecoveryReport.Dropped d : r.dropped()) {
            if (shown == HUMAN_DROPPED) break;
            out.printf("  dropped transaction at offset %,d, revision %d, %d record(s): %s%n", d.offset(), d.revision(), d.records(), d.why());
            shown++;
        }
        if (r.droppedTransactions() > shown) {
            out.printf("  … and %,d more dropped transaction(s) (the JSON report, -w json or --report FILE, lists the first %,d)%n",
                    r.droppedTransactions() - shown, RecoveryReport.MAX_LISTED);
        }
        for (Finding f : r.findings()) {
            if (f.kind() != dev.walkit.format.DamageKind.INCOMPLETE_TRANSACTION) out.printf("  finding %s at offset %,d: %s%n", f.kind().label(), f.offset(), f.detail());
        }
        if (r.refused() != null) {
            out.printf("refused: %s%n", r.refused());
            return;
        }
        out.printf("  state: revision %d, compact revision %d, %,d live keys, %,d leases (next lease ID %d)%n", r.finalRevision(),
                r.compactRevision(), r.liveKeys(), r.leases().keysByLease().size(), r.leases().nextLeaseId());
        if (r.formWhy() != null) out.printf("  form: %s: %s%n", r.form(), r.formWhy());
        if (o.dryRun()) {
            for (RecoveryReport.Loss l : r.loss()) {
                out.printf("  would lose: %-7s %s (revision %d)%n", l.change(), new String(l.key(), StandardCharsets.UTF_8), l.revision());
            }
            out.printf("dry run: would write %s/wal (%s form), state digest %s%n", o.out() == null ? "DIR" : o.out(), r.form(), r.stateDigest());
        } else {
            out.printf("wrote %s (%,d bytes, sha256 %s) and %s, verified%n", r.output(), r.outputBytes(), r.outputSha256(),
                    r.output().resolveSibling(Recovery.LEASES_FILE));
        }
    }

    /** -w table: the facts, then damaged ranges, dropped transactions and (dry run) the loss, each a table. */
    static void table(PrintWriter out, RecoveryReport r) {
        RecoveryOptions o = r.options();
        Table facts = new Table("field", "value").row("input", r.input()).row("format", r.format() == null ? null : r.format().label())
                .row("policy", o.policy().label()).row("dry run", o.dryRun()).row("input bytes", r.inputBytes()).row("input records", r.inputRecords())
                .row("kept transactions", r.keptTransactions()).row("kept records", r.keptRecords()).row("dropped transactions", r.droppedTransactions());
        if (r.refused() != null) facts.row("refused", r.refused());
        else {
            facts.row("final revision", r.finalRevision()).row("compact revision", r.compactRevision()).row("live keys", r.liveKeys())
                    .row("leases", r.leases().keysByLease().size()).row("next lease id", r.leases().nextLeaseId()).row("state digest", r.stateDigest());
            if (!o.dryRun()) facts.row("output", r.output()).row("output bytes", r.outputBytes()).row("output sha256", r.outputSha256());
        }
        facts.print(out);
        Table damage = new Table("damage", "offset", "length");
        for (DamageSpan d : r.damage()) damage.row(d.kind().label(), d.offset(), d.length());
        if (!damage.isEmpty()) damage.print(out);
        Table dropped = new Table("dropped at offset", "revision", "records", "why");
        for (RecoveryReport.Dropped d : r.dropped()) dropped.row(d.offset(), d.revision(), d.records(), d.why());
        if (!dropped.isEmpty()) dropped.print(out);
        Table loss = new Table("would lose", "key", "revision");
        for (RecoveryReport.Loss l : r.loss()) loss.row(l.change(), new String(l.key(), StandardCharsets.UTF_8), l.revision());
        if (o.dryRun() && !loss.isEmpty()) loss.print(out);
    }

    static String json(RecoveryReport r) {
        RecoveryOptions o = r.options();
        Json j = new Json().beginObject().field("schema", SCHEMA).field("policy", o.policy().label()).field("dry_run", o.dryRun())
                .field("form", r.form()).field("form_why", r.formWhy());
        j.name("input").beginObject().field("path", r.input().toString()).field("format", r.format() == null ? null : r.format().label())
                .field("bytes", r.inputBytes()).field("records", r.inputRecords()).endObject();
        j.field("kept_transactions", r.keptTransactions()).field("kept_records", r.keptRecords()).field("dropped_transactions", r.droppedTransactions());
        j.name("dropped").beginArray();
        for (RecoveryReport.Dropped d : r.dropped()) {
            j.beginObject().field("offset", d.offset()).field("revision", d.revision()).field("records", d.records()).field("why", d.why()).endObject();
        }
        j.endArray().name("damage").beginArray();
        for (DamageSpan d : r.damage()) j.beginObject().field("offset", d.offset()).field("length", d.length()).field("kind", d.kind().label()).endObject();
        j.endArray().name("findings").beginArray();
        for (Finding f : r.findings()) j.beginObject().field("kind", f.kind().label()).field("offset", f.offset()).field("revision", f.revision()).field("detail", f.detail()).endObject();
        j.endArray();
        j.name("refused").value(r.refused());
        if (r.refused() == null) {
            j.field("final_revision", r.finalRevision()).field("compact_revision", r.compactRevision()).field("live_keys", r.liveKeys())
                    .field("state_digest", r.stateDigest());
            j.name("leases").beginObject().field("count", r.leases().keysByLease().size()).field("next_lease_id", r.leases().nextLeaseId())
                    .field("ttl_seconds", r.leases().ttlSeconds()).endObject();
            j.name("loss").beginArray();
            for (RecoveryReport.Loss l : r.loss()) {
                j.beginObject().field("change", l.change()).field("key", new String(l.key(), StandardCharsets.UTF_8)).field("revision", l.revision()).endObject();
            }
            j.endArray();
            j.name("output").beginObject().field("path", r.output() == null ? null : r.output().toString()).field("bytes", r.outputBytes())
                    .field("sha256", r.outputSha256()).endObject();
        }
        return j.endObject().toString();
    }

}
