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
        dev.walkit.format.account.Account a = d.account();
        new Table("field", "value").row("path", a.store().path()).row("format", a.store().formatLabel()).row("bytes", a.store().bytes())
                .row("records", a.records()).row("transactions", a.transactions()).row("first revision", Revision.cell(a.firstRevision()))
                .row("revision", Revision.cell(a.lastRevision())).row("compact revision", Revision.cell(a.compactRevision())).row("live keys", a.liveKeys())
                .row("tombstones", a.tombstones()).row("leases", a.leases())
                .row("next lease id", d.facts().nextLeaseId() >= 0 ? d.facts().nextLeaseId() : "-")
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
