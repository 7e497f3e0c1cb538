package dev.walkit.doctor;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.Table;
import dev.walkit.format.Assessment;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Meaning;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replayer;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The incident report: what the log is, what is wrong with it, what it costs, the field's known
 * signatures recognised, and the next command(s) to run. Pure over a {@link LogIndex}.
 */
public final class Diagnosis {
    public static final String SCHEMA = "walkit.waldoctor.diagnose/v1";

    /** A Kubernetes resource's share of the key space. */
    public record Resource(String name, long liveKeys, long liveBytes, long writes) {
    }

    /** A recognised signature of a known incident. */
    public record Signature(String name, String explanation) {
    }

    final LogIndex x;
    final List<Resource> resources = new ArrayList<>();
    final List<KeyState> largest = new ArrayList<>();
    final long[] writesPerDecile = new long[10];
    final List<Signature> signatures = new ArrayList<>();
    final Set<String> uncertainKeys = new LinkedHashSet<>();
    final List<String> next = new ArrayList<>();
    final ExitCode exit;
    final dev.walkit.format.replay.LeaseMetadata leases;

    public Diagnosis(LogIndex x) {
        this.x = x;
        Replayer s = x.state();
        this.leases = s.leases();
        Map<String, long[]> byResource = new TreeMap<>();
        long first = Math.max(1, s.compactRevision());
        long span = Math.max(1, s.revision() - first + 1);
        for (var e : x.histories().entrySet()) {
            long[] r = byResource.computeIfAbsent(resourceOf(e.getKey()), k -> new long[3]);
            LogIndex.History h = e.getValue();
            r[2] += h.size;
            for (int i = 0; i < h.size; i++) {
                int d = (int) Math.min(9, Math.max(0, (h.revision(i) - first) * 10 / span));
                writesPerDecile[d]++;
            }
        }
        List<KeyState> live = x.live();
        for (KeyState k : live) {
            long[] r = byResource.computeIfAbsent(resourceOf(new String(k.key(), StandardCharsets.UTF_8)), n -> new long[3]);
            r[0]++;
            r[1] += k.valueLength();
        }
        byResource.forEach((n, r) -> resources.add(new Resource(n, r[0], r[1], r[2])));
        live.stream().sorted(Comparator.comparingInt(KeyState::valueLength).reversed()).limit(5).forEach(largest::add);
        for (LogIndex.Dropped d : x.dropped()) uncertainKeys.addAll(d.keys());
        recognise();
        Assessment.Verdict verdict = Assessment.of(x.damage().stream().map(DamageLocator.Located::span).toList(), s.findings(),
                x.file().size()).verdict();
        boolean healthy = verdict == Assessment.Verdict.HEALTHY;
        boolean tailOnly = verdict == Assessment.Verdict.TORN_TAIL;
        exit = healthy ? ExitCode.OK : tailOnly ? ExitCode.TAIL_ONLY : ExitCode.DAMAGE;
        recommend(healthy, tailOnly);
    }

    /** {@code /registry/pods/ns/name} → pods; {@code /registry/example.com/widgets/…} → example.com/widgets. */
    static String resourceOf(String key) {
        if (!key.startsWith("/registry/")) return "(other)";
        String[] parts = key.substring("/registry/".length()).split("/", -1);
        if (parts.length == 0 || parts[0].isEmpty()) return "(other)";
        return parts[0].contains(".") && parts.length > 1 ? parts[0] + "/" + parts[1] : parts[0];
    }

    private void recognise() {
        for (DamageLocator.Located l : x.damage()) {
            DamageSpan d = l.span();
            switch (d.kind()) {
                case CRC_RANGE_BUG -> signatures.add(new Signature("crc-range-bug",
                        d.records() + " record(s) carry CRCs over the " + d.crcRange().label() + " range: the writer bug; the data is intact"));
                case TORN_TAIL -> signatures.add(new Signature("torn-tail-after-power-loss",
                        "the last record is cut short at the end of the file: a crash mid-append; only unsynced writes are lost"));
                case GARBAGE_SPAN -> {
                    if (allZero(d)) signatures.add(new Signature("zero-filled-block", d.length() + " zero bytes at offset " + d.offset()
                            + ": a lost disk block or preallocated space; the transactions in it are gone"));
                }
                default -> { }
            }
        }
        Replayer s = x.state();
        long regressions = s.findingCounts().getOrDefault(DamageKind.REVISION_REGRESSION, 0);
        if (regressions > 0) {
            signatures.add(new Signature("duplicated-tail", regressions + " transaction(s) repeat earlier revisions: a tail appended twice; the first occurrence wins"));
        }
        if (s.findingCounts().containsKey(DamageKind.TRUNCATED_SNAPSHOT)) {
            signatures.add(new Signature("truncated-snapshot", "a compaction's snapshot prefix lost records: keys live at the compact revision may be missing"));
        }
        if (x.leftoverCompaction() != null) {
            signatures.add(new Signature("leftover-compaction", x.leftoverCompaction() + " exists: a compaction did not finish; wal is authoritative"));
        }
    }

    private boolean allZero(DamageSpan d) {
        long len = Math.min(d.length(), 64L << 20);
        for (long off = 0; off < len; off += 1 << 20) {
            byte[] b = x.file().read(d.offset() + off, (int) Math.min(1 << 20, len - off));
            for (byte v : b) if (v != 0) return false;
        }
        return true;
    }

    private void recommend(boolean healthy, boolean tailOnly) {
        String p = x.file().path().toString();
        if (healthy) {
            next.add("nothing to repair; `waldoctor shell " + p + "` to look around");
            return;
        }
        boolean crcBug = signatures.stream().anyMatch(s -> s.name().equals("crc-range-bug"));
        if (crcBug) {
            String range = x.damage().stream().filter(l -> l.span().kind() == DamageKind.CRC_RANGE_BUG).findFirst().orElseThrow().span().crcRange().label();
            next.add("walrecover --accept-crc " + range + " --out /var/lib/RECOVERED " + p);
            return;
        }
        if (tailOnly) {
            next.add("walrecover --policy tolerate-tail --out /var/lib/RECOVERED " + p);
            return;
        }
        next.add("walrecover --dry-run --policy salvage " + p + "   # preview what would be lost");
        next.add("walrecover --policy salvage --out /var/lib/RECOVERED --report recover.json " + p);
        next.add("walrecover --policy point-in-time --out /var/lib/RECOVERED " + p + "   # or: keep only what precedes the first damage");
        next.add("if live keys vanished at a known revision R (the compaction bug): walrecover --to-revision R-1 --out /var/lib/RECOVERED " + p);
    }

    public ExitCode exitCode() {
        return exit;
    }

    private static String rev(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }

    public void human(PrintWriter out) {
        Replayer s = x.state();
        out.printf("== what this log is%n");
        out.printf("  %s: WAL format %s, %,d bytes, %,d valid records, %,d transactions applied%n", x.file().path(), x.format().label(),
                x.file().size(), x.records(), s.transactions());
        out.printf("  revisions %s..%d, compact revision %d; %,d live keys, %,d tombstones, %,d leases (next lease ID %d)%n",
                rev(s.firstRevision()), s.revision(), s.compactRevision(), s.keys().liveCount(), s.keys().tombstoneCount(),
                leases.keysByLease().size(), leases.nextLeaseId());
        out.printf("  writes by tenth of the revision range: %s%n", java.util.Arrays.toString(writesPerDecile));
        out.printf("== key space by resource%n");
        out.printf("  %-32s %10s %12s %10s%n", "resource", "live keys", "live bytes", "writes");
        for (Resource r : resources) out.printf("  %-32s %,10d %,12d %,10d%n", r.name(), r.liveKeys(), r.liveBytes(), r.writes());
        out.printf("== largest values%n");
        for (KeyState k : largest) out.printf("  %,10d B  %s%n", k.valueLength(), new String(k.key(), StandardCharsets.UTF_8));
        out.printf("== findings%n");
        if (x.damage().isEmpty() && s.findings().isEmpty()) out.printf("  none: the log is healthy%n");
        for (DamageLocator.Located l : x.damage()) {
            DamageSpan d = l.span();
            long lost = l.revisionBefore() >= 0 && l.revisionAfter() >= 0 ? Math.max(0, l.revisionAfter() - l.revisionBefore() - 1) : -1;
            out.printf("  %s at offset %,d, %,d bytes, between revisions %s and %s%s%n    %s%n    %s%n", d.kind().label(), d.offset(), d.length(),
                    rev(l.revisionBefore()), rev(l.revisionAfter()), lost > 0 ? " (" + lost + " revision(s) missing)" : "", d.describe(), Meaning.of(d.kind()));
        }
        for (Finding f : s.findings()) {
            out.printf("  %s at offset %,d (revision %s): %s%n    %s%n", f.kind().label(), f.offset(), rev(f.revision()), f.detail(), Meaning.of(f.kind()));
        }
        if (!x.dropped().isEmpty()) {
            out.printf("== what it costs%n  %d transaction(s) dropped; keys whose latest state is uncertain:%n", x.dropped().size());
            uncertainKeys.stream().limit(50).forEach(k -> out.printf("    %s%n", k));
            if (uncertainKeys.size() > 50) out.printf("    … %d more%n", uncertainKeys.size() - 50);
        }
        if (!signatures.isEmpty()) {
            out.printf("== known signatures%n");
            for (Signature g : signatures) out.printf("  %s: %s%n", g.name(), g.explanation());
        }
        out.printf("== next%n");
        for (String n : next) out.printf("  %s%n", n);
        out.printf("verdict: %s (exit %d)%n", exit == ExitCode.OK ? "healthy" : exit == ExitCode.TAIL_ONLY ? "torn tail only" : "damaged", exit.code());
    }

    /** -w table: the same sections as {@link #human}, each a table. */
    public void table(PrintWriter out) {
        Replayer s = x.state();
        new Table("field", "value").row("path", x.file().path()).row("format", x.format().label()).row("bytes", x.file().size())
                .row("records", x.records()).row("transactions", s.transactions()).row("first revision", s.firstRevision() < 0 ? null : s.firstRevision())
                .row("revision", s.revision()).row("compact revision", s.compactRevision()).row("live keys", s.keys().liveCount())
                .row("tombstones", s.keys().tombstoneCount()).row("leases", leases.keysByLease().size()).row("next lease id", leases.nextLeaseId())
                .print(out);
        Table res = new Table("resource", "live keys", "live bytes", "writes");
        for (Resource r : resources) res.row(r.name(), r.liveKeys(), r.liveBytes(), r.writes());
        if (!res.isEmpty()) res.print(out);
        Table findings = new Table("finding", "offset", "length", "rev before", "rev after", "detail");
        for (DamageLocator.Located l : x.damage()) {
            DamageSpan d = l.span();
            findings.row(d.kind().label(), d.offset(), d.length(), l.revisionBefore() < 0 ? null : l.revisionBefore(),
                    l.revisionAfter() < 0 ? null : l.revisionAfter(), d.describe());
        }
        for (Finding f : s.findings()) findings.row(f.kind().label(), f.offset(), f.length(), f.revision() < 0 ? null : f.revision(), null, f.detail());
        if (!findings.isEmpty()) findings.print(out);
        Table sig = new Table("signature", "explanation");
        for (Signature g : signatures) sig.row(g.name(), g.explanation());
        if (!sig.isEmpty()) sig.print(out);
        Table next = new Table("next");
        for (String n : this.next) next.row(n);
        if (!next.isEmpty()) next.print(out);
        out.printf("verdict: %s (exit %d)%n", exit == ExitCode.OK ? "healthy" : exit == ExitCode.TAIL_ONLY ? "torn tail only" : "damaged", exit.code());
    }

    public String json() {
        Replayer s = x.state();
        Json j = new Json().beginObject().field("schema", SCHEMA).field("path", x.file().path().toString()).field("format", x.format().label())
                .field("bytes", x.file().size()).field("records", x.records()).field("transactions", s.transactions())
                .fieldOrNull("first_revision", s.firstRevision()).field("last_revision", s.revision()).field("compact_revision", s.compactRevision())
                .field("live_keys", s.keys().liveCount()).field("tombstones", s.keys().tombstoneCount())
                .field("leases", leases.keysByLease().size());
        j.name("writes_per_tenth").beginArray();
        for (long w : writesPerDecile) j.value(w);
        j.endArray().name("resources").beginArray();
        for (Resource r : resources) j.beginObject().field("resource", r.name()).field("live_keys", r.liveKeys()).field("live_bytes", r.liveBytes()).field("writes", r.writes()).endObject();
        j.endArray().name("largest_values").beginArray();
        for (KeyState k : largest) j.beginObject().field("key", new String(k.key(), StandardCharsets.UTF_8)).field("bytes", k.valueLength()).endObject();
        j.endArray().name("damage").beginArray();
        for (DamageLocator.Located l : x.damage()) {
            DamageSpan d = l.span();
            j.beginObject().field("offset", d.offset()).field("length", d.length()).field("kind", d.kind().label()).field("detail", d.describe())
                    .fieldOrNull("revision_before", l.revisionBefore()).fieldOrNull("revision_after", l.revisionAfter()).endObject();
        }
        j.endArray().name("findings").beginArray();
        for (Finding f : s.findings()) j.beginObject().field("kind", f.kind().label()).field("offset", f.offset()).fieldOrNull("revision", f.revision()).field("detail", f.detail()).endObject();
        j.endArray().name("dropped_transactions").beginArray();
        for (LogIndex.Dropped d : x.dropped()) {
            j.beginObject().field("offset", d.offset()).field("revision", d.revision()).field("why", d.why()).name("keys").beginArray();
            d.keys().forEach(j::value);
            j.endArray().endObject();
        }
        j.endArray().name("uncertain_keys").beginArray();
        uncertainKeys.forEach(j::value);
        j.endArray().name("signatures").beginArray();
        for (Signature g : signatures) j.beginObject().field("name", g.name()).field("explanation", g.explanation()).endObject();
        j.endArray().name("next").beginArray();
        next.forEach(j::value);
        j.endArray();
        return j.field("verdict", exit == ExitCode.OK ? "healthy" : exit == ExitCode.TAIL_ONLY ? "torn-tail" : "damaged").field("exit_code", exit.code()).endObject().toString();
    }
}
