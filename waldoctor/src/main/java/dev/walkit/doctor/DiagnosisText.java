package dev.walkit.doctor;

import dev.walkit.cli.KeyText;
import dev.walkit.cli.render.AccountText;
import dev.walkit.format.Finding;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;


/** {@code -w simple}: the report in sections, ending with the next command(s) and the verdict. */
final class DiagnosisText implements DiagnosisPrinter {
    /** Keys listed one by one on a terminal; JSON lists them all. */
    static final int KEYS_SHOWN = 50;
    /** Findings of one kind shown on the page of text. */
    static final int FINDINGS_SHOWN = 20;

    @Override
    public void print(PrintWriter out, Diagnosis d) {
        Account a = d.account();
        out.printf("== what this log is%n");
        out.printf("  %s%n  %s%n", AccountText.what(a), AccountText.read(a));
        // The next lease ID is the store's (it numbers leases in turn); etcd's IDs are not in turn, kine's are TTLs.
        out.printf("  %s%s%n", AccountText.state(a), d.facts().nextLeaseId() >= 0 ? " (next lease ID " + dev.walkit.cli.LeaseId.text(d.facts().nextLeaseId()) + " (" + d.facts().nextLeaseId() + "))" : "");
        out.printf("  writes by tenth of the revision range: %s%n", d.writesPerTenth());
        out.printf("== key space by resource%n");
        out.printf("  %-32s %10s %12s %10s%n", "resource", "live keys", "live bytes", "writes");
        for (Diagnosis.Resource r : d.resources()) out.printf("  %-32s %,10d %,12d %,10d%n", r.name(), r.liveKeys(), r.liveBytes(), r.writes());
        out.printf("== largest values%n");
        for (Diagnosis.Largest l : d.largest()) out.printf("  %,10d B  %s%n", l.bytes(), KeyText.quote(l.key()));
        out.printf("== findings%n");
        if (a.damage().isEmpty() && a.findings().isEmpty() && a.store().damage().isEmpty()) out.printf("  none: the log is healthy%n");
        AccountText.storeDamage(out, "  ", a);
        for (DamageLocator.Located l : a.damage()) AccountText.span(out, "  ", l, a);
        // Bounded by kind on the page of text (a 100 MiB overwrite leaves thousands of one kind); all in -w json.
        java.util.Map<dev.walkit.format.DamageKind, Integer> shown = new java.util.EnumMap<>(dev.walkit.format.DamageKind.class);
        for (Finding x : a.findings()) {
            int n = shown.merge(x.kind(), 1, Integer::sum);
            if (n <= FINDINGS_SHOWN) AccountText.finding(out, "  ", x);
        }
        shown.forEach((kind, n) -> {
            if (n > FINDINGS_SHOWN) out.printf("  … %,d more %s finding(s) (-w json lists them all)%n", n - FINDINGS_SHOWN, kind.label());
        });
        if (!a.drops().isEmpty() || a.lostUpTo() > 0 || !a.affectedKeys().isEmpty() || !d.lostWindows().isEmpty()) {
            out.printf("== what it costs%n  %s%n", a.revisions().text());
        }
        if (!a.affectedKeys().isEmpty()) {
            out.printf("  %s:%n", AccountText.AFFECTED);
            AccountText.affectedKeys(out, "    ", a, KEYS_SHOWN);
        }
        for (LostWindows.Window w : d.lostWindows()) out.printf("  %s%n", LostWindows.text(w));
        if (!d.signatures().isEmpty()) {
            out.printf("== known signatures%n");
            for (Diagnosis.Signature g : d.signatures()) out.printf("  %s: %s%n", g.name(), g.explanation());
        }
        out.printf("== next%n");
        for (String n : d.next()) out.printf("  %s%n", n);
        out.println(DiagnosisPrinter.verdictLine(d));
    }
}
