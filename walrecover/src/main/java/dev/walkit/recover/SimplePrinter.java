package dev.walkit.recover;

import dev.walkit.cli.render.AccountText;
import dev.walkit.format.Finding;

import java.io.PrintWriter;

/** {@code -w simple}: what was kept and dropped and why, the state, and what was written (or would be). */
final class SimplePrinter implements RecoveryPrinter {
    /** Dropped transactions listed one by one in the text form; the rest are counted (a point-in-time recovery can drop millions). */
    static final int HUMAN_DROPPED = 20;

    @Override
    public void print(PrintWriter out, RecoveryReport r) {
        RecoveryOptions o = r.options();
        out.printf("walrecover: %s, policy %s%s%n", r.input(), o.policy().label(), o.dryRun() ? " (dry run: nothing written)" : "");
        dev.walkit.format.account.Account a = r.account();
        if (a == null) {
            out.printf("  input: format %s, %,d bytes%n", r.format() == null ? "-" : r.format().label(), r.inputBytes());
        } else {
            out.printf("  input: %s; %s%n", AccountText.kind(a), AccountText.read(a));
            AccountText.storeDamage(out, "  ", a);
        }
        for (String l : r.cleanedUp()) out.printf("  %s%n", l);
        out.printf("  kept %,d transactions (%,d records); dropped %,d%n", r.keptTransactions(), r.keptRecords(), r.droppedTransactions());
        if (r.revisions() != null) out.printf("  %s%n", r.revisions().text());
        if (a != null) {
            for (dev.walkit.format.replay.DamageLocator.Located d : a.damage()) AccountText.span(out, "  ", d, a);
            int shown = 0;
            for (dev.walkit.format.account.Drop d : a.drops()) {
                if (shown == HUMAN_DROPPED) break;
                out.printf("  %s%n", AccountText.drop(d));
                shown++;
            }
            if (a.drops().size() > shown) {
                out.printf("  … and %,d more dropped transaction(s) (the JSON report, -w json or --report FILE, lists the first %,d)%n",
                        a.drops().size() - shown, RecoveryReport.MAX_LISTED);
            }
            for (Finding f : a.findings()) {
                if (f.kind() != dev.walkit.format.DamageKind.INCOMPLETE_TRANSACTION) AccountText.finding(out, "  ", f);
            }
        }
        if (r.refused() != null) {
            out.printf("refused: %s%n", r.refused());
            return;
        }
        out.printf("  state: revision %d, compact revision %d, %,d live keys, %,d leases (next lease ID %s (%d))%n", r.finalRevision(),
                r.compactRevision(), r.liveKeys(), r.leases().keysByLease().size(), dev.walkit.cli.LeaseId.text(r.leases().nextLeaseId()), r.leases().nextLeaseId());
        if (r.formWhy() != null) out.printf("  form: %s: %s%n", r.form(), r.formWhy());
        if (o.dryRun()) {
            int lost = 0;
            for (RecoveryReport.Loss l : r.loss()) {
                if (lost == HUMAN_DROPPED) break;
                out.printf("  would lose: %-7s %s (revision %d)%n", l.change(), dev.walkit.cli.KeyText.quote(l.key()), l.revision());
                lost++;
            }
            if (r.loss().size() > lost) {
                out.printf("  … and %,d more key(s) that would lose a change (the JSON report, -w json or --report FILE, lists them)%n", r.loss().size() - lost);
            }
            out.printf("dry run: would write %s/%s (%s), state digest %s%n", o.out() == null ? "DIR" : o.out(), o.file(),
                    o.store() == dev.walkit.format.account.Store.Kind.WAL ? r.form() + " form" : o.store().label() + ", from the " + r.form() + " form", r.stateDigest());
        } else if (o.store() != dev.walkit.format.account.Store.Kind.WAL) {
            out.printf("wrote %s (%,d bytes, %s %s), read back and verified%n", r.output(), r.outputBytes(), o.checksum().label(), r.outputChecksum());
            if (r.storeNote() != null) out.printf("  %s%n", r.storeNote());
            if (r.keptAs() != null) out.printf("  the old file is kept as %s%s%n", o.file(), r.keptAs());
        } else {
            out.printf("wrote %s (%,d bytes, %s %s) and %s, verified%n", r.output(), r.outputBytes(), o.checksum().label(), r.outputChecksum(),
                    r.output().resolveSibling(Recovery.LEASES_FILE));
            if (r.keptAs() != null) out.printf("  the old files are kept as wal%1$s and leases.json%1$s (where there were such)%n", r.keptAs());
        }
    }
}
