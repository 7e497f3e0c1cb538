package dev.walkit.doctor;

import dev.walkit.cli.Revision;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Meaning;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;


/** {@code -w simple}: the report in sections, ending with the next command(s) and the verdict. */
final class DiagnosisText implements DiagnosisPrinter {
    @Override
    public void print(PrintWriter out, Diagnosis d) {
        Diagnosis.Facts f = d.facts();
        out.printf("== what this log is%n");
        if (f.store().equals("wal")) {
            out.printf("  %s: WAL format %s, %,d bytes, %,d valid records, %,d transactions applied%n", f.path(), f.format(), f.bytes(),
                    f.records(), f.transactions());
        } else {
            out.printf("  %s: %s (%s), %,d bytes, %,d revisions, %,d transactions applied%n", f.path(),
                    f.store().equals("kine") ? "kine state.db" : "etcd db", f.storeDetail(), f.bytes(), f.records(), f.transactions());
        }
        // The next lease ID is the store's (it numbers leases in turn); etcd's IDs are not in turn, kine's are TTLs.
        out.printf("  revisions %s..%d, compact revision %d; %,d live keys, %,d tombstones, %,d leases%s%n",
                Revision.text(f.firstRevision()), f.revision(), f.compactRevision(), f.liveKeys(), f.tombstones(), f.leases(),
                f.nextLeaseId() >= 0 ? " (next lease ID " + f.nextLeaseId() + ")" : "");
        out.printf("  writes by tenth of the revision range: %s%n", d.writesPerTenth());
        out.printf("== key space by resource%n");
        out.printf("  %-32s %10s %12s %10s%n", "resource", "live keys", "live bytes", "writes");
        for (Diagnosis.Resource r : d.resources()) out.printf("  %-32s %,10d %,12d %,10d%n", r.name(), r.liveKeys(), r.liveBytes(), r.writes());
        out.printf("== largest values%n");
        for (Diagnosis.Largest l : d.largest()) out.printf("  %,10d B  %s%n", l.bytes(), l.key());
        out.printf("== findings%n");
        if (d.damage().isEmpty() && d.findings().isEmpty() && d.storeDamage().isEmpty()) out.printf("  none: the log is healthy%n");
        for (String x : d.storeDamage()) out.printf("  %s damage: %s%n", f.store().equals("kine") ? "SQLite" : "bbolt", x);
        for (DamageLocator.Located l : d.damage()) {
            DamageSpan s = l.span();
            out.printf("  %s at offset %,d, %,d bytes, %s%n    %s%n    %s%n", s.kind().label(), s.offset(), s.length(), Revision.where(l.revisionBefore(), l.revisionAfter()), s.describe(),
                    Meaning.of(s.kind()));
        }
        for (Finding x : d.findings()) {
            out.printf("  %s at offset %,d (revision %s): %s%n    %s%n", x.kind().label(), x.offset(), Revision.text(x.revision()), x.detail(), Meaning.of(x.kind()));
        }
        if (!d.dropped().isEmpty() || d.account().damagedUpTo() > 0) {
            out.printf("== what it costs%n  %s%n", d.account().text());
        }
        if (!d.dropped().isEmpty()) {
            out.printf("  keys whose latest state is uncertain (their dropped transactions):%n");
            d.uncertainKeys().stream().limit(50).forEach(k -> out.printf("    %s%n", k));
            if (d.uncertainKeys().size() > 50) out.printf("    … %d more%n", d.uncertainKeys().size() - 50);
        }
        if (!d.signatures().isEmpty()) {
            out.printf("== known signatures%n");
            for (Diagnosis.Signature g : d.signatures()) out.printf("  %s: %s%n", g.name(), g.explanation());
        }
        out.printf("== next%n");
        for (String n : d.next()) out.printf("  %s%n", n);
        out.println(DiagnosisPrinter.verdictLine(d));
    }
}
