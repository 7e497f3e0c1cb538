package dev.walkit.doctor;

import dev.walkit.cli.Revision;
import dev.walkit.cli.Table;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;


/** {@code -w table}: the same sections as the text, each a table. */
final class DiagnosisTable implements DiagnosisPrinter {
    @Override
    public void print(PrintWriter out, Diagnosis d) {
        Diagnosis.Facts f = d.facts();
        new Table("field", "value").row("path", f.path()).row("format", f.format()).row("bytes", f.bytes())
                .row("records", f.records()).row("transactions", f.transactions()).row("first revision", Revision.cell(f.firstRevision()))
                .row("revision", f.revision()).row("compact revision", f.compactRevision()).row("live keys", f.liveKeys())
                .row("tombstones", f.tombstones()).row("leases", f.leases()).row("next lease id", f.nextLeaseId() >= 0 ? f.nextLeaseId() : "-")
                .print(out);
        Table res = new Table("resource", "live keys", "live bytes", "writes");
        for (Diagnosis.Resource r : d.resources()) res.row(r.name(), r.liveKeys(), r.liveBytes(), r.writes());
        if (!res.isEmpty()) res.print(out);
        Table findings = new Table("finding", "offset", "length", "rev before", "rev after", "detail");
        for (DamageLocator.Located l : d.damage()) {
            DamageSpan s = l.span();
            findings.row(s.kind().label(), s.offset(), s.length(), Revision.cell(l.revisionBefore()), Revision.cell(l.revisionAfter()), s.describe());
        }
        for (Finding x : d.findings()) findings.row(x.kind().label(), x.offset(), x.length(), Revision.cell(x.revision()), null, x.detail());
        if (!findings.isEmpty()) findings.print(out);
        Table sig = new Table("signature", "explanation");
        for (Diagnosis.Signature g : d.signatures()) sig.row(g.name(), g.explanation());
        if (!sig.isEmpty()) sig.print(out);
        Table next = new Table("next");
        for (String n : d.next()) next.row(n);
        if (!next.isEmpty()) next.print(out);
        out.println(DiagnosisPrinter.verdictLine(d));
    }
}
