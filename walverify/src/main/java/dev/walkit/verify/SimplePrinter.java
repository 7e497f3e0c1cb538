package dev.walkit.verify;

import dev.walkit.format.pass.PassReport;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.render.AccountText;
import dev.walkit.format.account.Account;
import dev.walkit.format.Finding;
import dev.walkit.format.assess.Meaning;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w simple}: the facts, each damage and finding with what it means, and the verdict with what to run next. */
final class SimplePrinter implements VerifyPrinter {
    @Override
    public void print(PrintWriter out, PassReport r, ExitCode code) {
        Account a = r.account();
        out.printf("%s, level %s%n", AccountText.what(a), r.level().name().toLowerCase(java.util.Locale.ROOT));
        AccountText.storeDamage(out, "  ", a);
        out.printf("  %s%n", AccountText.read(a));
        if (a.replayed()) out.printf("  live keys %,d, tombstones %,d%n", a.liveKeys(), a.tombstones());
        if (r.leftoverCompaction() != null) out.printf("  note: leftover compaction %s: %s%n", r.leftoverCompaction(), Meaning.of(dev.walkit.format.DamageKind.LEFTOVER_COMPACTION));
        if (r.grewTo() >= 0) out.println(grewNote(r));
        for (DamageLocator.Located d : a.damage()) AccountText.span(out, "  ", d, a);
        for (Finding f : a.findings()) {
            if (f.kind() != dev.walkit.format.DamageKind.LEFTOVER_COMPACTION) AccountText.finding(out, "  ", f);
        }
        if (a.replayed() && !a.affectedKeys().isEmpty()) {
            out.printf("  %s:%n", dev.walkit.cli.render.AccountText.AFFECTED);
            AccountText.affectedKeys(out, "    ", a, 50);
        }
        String verdict = switch (code) {
            case OK -> "healthy";
            case TAIL_ONLY -> "torn tail only: `walrecover --policy tolerate-tail --out DIR " + r.path() + "` repairs it";
            default -> r.isWal() && !r.level().replays()
                    ? "DAMAGED: see the findings above; `walverify --level semantic " + r.path() + "` adds the replay rules"
                    : "DAMAGED: see the findings above; `waldoctor diagnose " + r.path() + "` for the report";
        };
        out.printf("verdict: %s (exit %d)%n", verdict, code.code());
    }

    /** The note for a file that grew while it was read. */
    static String grewNote(PassReport r) {
        return String.format("  note: the file grew to %,d bytes while it was read (is the store running?): only the first %,d bytes were "
                + "verified, and a torn tail at their end may be a write in progress, not damage", r.grewTo(), r.bytes());
    }
}
