package dev.walkit.verify;

import dev.walkit.format.pass.PassReport;
import dev.walkit.cli.Revision;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Table;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w table}: the facts, then the damage and the findings, each a table; the verdict line last. */
final class TablePrinter implements VerifyPrinter {
    @Override
    public void print(PrintWriter out, PassReport r, ExitCode code) {
        Table facts = new Table("field", "value").row("path", r.path()).row("format", r.format().label())
                .row("level", r.level().name().toLowerCase(java.util.Locale.ROOT)).row("bytes", r.bytes()).row("records", r.records())
                .row("transactions", r.transactions()).row("first revision", Revision.cell(r.firstRevision())).row("last revision", Revision.cell(r.lastRevision()))
                .row("compact revision", Revision.cell(r.compactRevision())).row("live keys", Revision.cell(r.liveKeys())).row("tombstones", Revision.cell(r.tombstones()));
        if (r.leftoverCompaction() != null) facts.row("leftover compaction", r.leftoverCompaction());
        if (r.grewTo() >= 0) facts.row("grew while read to", r.grewTo());
        facts.print(out);
        Table damage = new Table("kind", "offset", "length", "rev before", "rev after", "detail");
        for (DamageLocator.Located d : r.damage()) {
            DamageSpan s = d.span();
            damage.row(s.kind().label(), s.offset(), s.length(), Revision.cell(d.revisionBefore()), Revision.cell(d.revisionAfter()), s.describe());
        }
        if (!damage.isEmpty()) damage.print(out);
        Table findings = new Table("finding", "offset", "revision", "detail");
        for (Finding f : r.findings()) findings.row(f.kind().label(), f.offset(), Revision.cell(f.revision()), f.detail());
        if (!findings.isEmpty()) findings.print(out);
        out.printf("verdict: %s (exit %d)%n", r.verdict(), code.code());
    }
}
