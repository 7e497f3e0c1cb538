package dev.walkit.verify;

import dev.walkit.cli.Revision;
import dev.walkit.cli.ExitCode;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Meaning;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w simple}: the facts, each damage and finding with what it means, and the verdict with what to run next. */
final class SimplePrinter implements VerifyPrinter {
    @Override
    public void print(PrintWriter out, VerifyReport r, ExitCode code) {
        if (r.isWal()) {
            out.printf("%s: WAL format %s, %,d bytes, level %s%n", r.path(), r.format().label(), r.bytes(), r.level().name().toLowerCase(java.util.Locale.ROOT));
        } else {
            out.printf("%s: %s (%s), %,d bytes, level %s%n", r.path(), r.store().equals("kine") ? "kine state.db" : "etcd db", r.storeDetail(), r.bytes(),
                    r.level().name().toLowerCase(java.util.Locale.ROOT));
        }
        for (String d : r.storeDamage()) out.printf("  %s damage: %s%n", r.store().equals("kine") ? "SQLite" : "bbolt", d);
        out.printf("  records %,d, transactions %,d, revisions %s..%s%s%n", r.records(), r.transactions(), Revision.text(r.firstRevision()),
                Revision.text(r.lastRevision()), r.compactRevision() >= 0 ? ", compact revision " + r.compactRevision() : "");
        if (r.liveKeys() >= 0) out.printf("  live keys %,d, tombstones %,d%n", r.liveKeys(), r.tombstones());
        if (r.leftoverCompaction() != null) out.printf("  note: leftover compaction %s: %s%n", r.leftoverCompaction(), Meaning.of(dev.walkit.format.DamageKind.LEFTOVER_COMPACTION));
        if (r.grewTo() >= 0) out.println(grewNote(r));
        for (DamageLocator.Located d : r.damage()) {
            DamageSpan s = d.span();
            out.printf("  %s at offset %,d, %,d bytes (%s): %s%n    %s%n", s.kind().label(), s.offset(), s.length(),
                    Revision.where(d.revisionBefore(), d.revisionAfter()), s.describe(), Meaning.of(s.kind()));
        }
        for (Finding f : r.findings()) {
            out.printf("  %s at offset %,d (revision %s): %s%n    %s%n", f.kind().label(), f.offset(), Revision.text(f.revision()), f.detail(), Meaning.of(f.kind()));
        }
        String verdict = switch (code) {
            case OK -> "healthy";
            case TAIL_ONLY -> "torn tail only: `walrecover --policy tolerate-tail --out DIR " + r.path() + "` repairs it";
            default -> r.isWal() ? "DAMAGED: see the findings above; `walverify --level semantic " + r.path() + "` adds the replay rules"
                    : "DAMAGED: see the findings above; `waldoctor diagnose " + r.path() + "` for the report";
        };
        out.printf("verdict: %s (exit %d)%n", verdict, code.code());
    }

    /** The note for a file that grew while it was read. */
    static String grewNote(VerifyReport r) {
        return String.format("  note: the file grew to %,d bytes while it was read (is the store running?): only the first %,d bytes were "
                + "verified, and a torn tail at their end may be a write in progress, not damage", r.grewTo(), r.bytes());
    }
}
