package dev.walkit.recover;

import dev.walkit.cli.Table;

import java.io.PrintWriter;

/** {@code -w table}: the facts, then damaged ranges, dropped transactions and (dry run) the loss, each a table. */
final class TablePrinter implements RecoveryPrinter {
    @Override
    public void print(PrintWriter out, RecoveryReport r) {
        RecoveryOptions o = r.options();
        Table facts = new Table("field", "value").row("input", r.input()).row("format", r.format() == null ? null : r.format().label())
                .row("policy", o.policy().label()).row("dry run", o.dryRun()).row("input bytes", r.inputBytes()).row("input records", r.inputRecords())
                .row("kept transactions", r.keptTransactions()).row("kept records", r.keptRecords()).row("dropped transactions", r.droppedTransactions());
        for (String l : r.cleanedUp()) facts.row("cleaned up", l);
        if (r.refused() != null) facts.row("refused", r.refused());
        else {
            facts.row("final revision", r.finalRevision()).row("compact revision", r.compactRevision()).row("live keys", r.liveKeys())
                    .row("leases", r.leases().keysByLease().size()).row("next lease id", r.leases().nextLeaseId()).row("state digest", r.stateDigest());
            if (!o.dryRun()) facts.row("output", r.output()).row("output bytes", r.outputBytes()).row("output " + o.checksum().label(), r.outputChecksum())
                    .row("old files kept as", r.keptAs() == null ? null : "wal" + r.keptAs() + ", leases.json" + r.keptAs());
        }
        facts.print(out);
        Table damage = new Table("damage", "offset", "length", "rev before", "rev after");
        Table dropped = new Table("dropped at offset", "revision", "records", "why");
        if (r.account() != null) {
            for (dev.walkit.format.replay.DamageLocator.Located l : r.account().damage()) {
                damage.row(l.span().kind().label(), l.span().offset(), l.span().length(), dev.walkit.cli.Revision.cell(l.revisionBefore()),
                        dev.walkit.cli.Revision.cell(l.revisionAfter()));
            }
            for (dev.walkit.format.account.Drop d : r.account().drops()) dropped.row(d.offset(), d.revision(), d.records(), d.reason().text());
        }
        if (!damage.isEmpty()) damage.print(out);
        if (!dropped.isEmpty()) dropped.print(out);
        Table loss = new Table("would lose", "key", "revision");
        for (RecoveryReport.Loss l : r.loss()) loss.row(l.change(), dev.walkit.cli.KeyText.quote(l.key()), l.revision());
        if (o.dryRun() && !loss.isEmpty()) loss.print(out);
    }
}
