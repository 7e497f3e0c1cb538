package dev.walkit.cli.render;

import dev.walkit.cli.KeyText;
import dev.walkit.cli.Revision;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.assess.Meaning;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Drop;
import dev.walkit.format.account.Store;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/**
 * The one text of each part of the {@link Account}: what was read, the state, a damaged span, a finding, a drop, the
 * one-line summary of the damage. Every tool's text and every view of the shell prints these through here.
 */
public final class AccountText {
    private AccountText() {
    }

    /** What the affected keys are, in the words every report heads their list with. */
    public static final String AFFECTED = "keys whose latest state is uncertain (a write of theirs dropped or legible in a damaged record, and none applied after it)";

    /** What was read, in one line: {@code PATH: WAL format v2, 1,048,471 bytes} or the store's kind and own facts. */
    public static String what(Account a) {
        return a.store().path() + ": " + kind(a);
    }

    /** What was read, without its path: {@code WAL format v2, 1,048,471 bytes} or the store's kind and own facts. */
    public static String kind(Account a) {
        Store s = a.store();
        if (s.isWal()) return String.format("WAL format %s, %,d bytes", s.format(), s.bytes());
        return String.format("%s (%s), %,d bytes", s.kind().title(), s.detail(), s.bytes());
    }

    /** The records and revisions read: {@code records 2,597, transactions 2,216, revisions 1..2217[, compact revision C]}. */
    public static String read(Account a) {
        return String.format("records %,d, transactions %,d, revisions %s..%s%s", a.records(), a.transactions(), Revision.text(a.firstRevision()),
                Revision.text(a.lastRevision()), a.compactRevision() >= 0 ? ", compact revision " + a.compactRevision() : "");
    }

    /** The state replay left: {@code live keys 469, tombstones 219, leases 5}; null without a replay. */
    public static String state(Account a) {
        if (!a.replayed()) return null;
        return String.format("live keys %,d, tombstones %,d, leases %,d", a.liveKeys(), a.tombstones(), a.leases());
    }

    /** The damage in one line: counts of spans, findings, the store's own damage, drops, and the revisions they may have held. */
    public static String damageSummary(Account a) {
        StringBuilder b = new StringBuilder(String.format("%d damaged span(s), %d finding(s)", a.damage().size(), a.findingCount()));
        if (!a.store().damage().isEmpty()) b.append(String.format(", %d in the %s itself", a.store().damage().size(), a.store().kind().title()));
        if (a.replayed()) {
            b.append(String.format(", %d transaction(s) dropped, up to %,d revision(s) in damaged bytes", a.drops().size(), a.lostUpTo()));
            if (!a.affectedKeys().isEmpty()) b.append(String.format(", %,d key(s) whose latest state is uncertain", a.affectedKeys().size()));
        }
        return b.toString();
    }

    /** The store's own damage, each a line ({@code indent} before). */
    public static void storeDamage(PrintWriter out, String indent, Account a) {
        for (String d : a.store().damage()) out.printf("%s%s damage: %s%n", indent, a.store().kind() == Store.Kind.KINE ? "SQLite" : "bbolt", d);
    }

    /** A damaged span and, on the next line, what it means (told as found: before the log's verdict is known). */
    public static void span(PrintWriter out, String indent, DamageLocator.Located d) {
        span(out, indent, d, null);
    }

    /** A damaged span of the account {@code a} and, on the next line, what it means in a log of its verdict. */
    public static void span(PrintWriter out, String indent, DamageLocator.Located d, Account a) {
        DamageSpan s = d.span();
        out.printf("%s%s at offset %,d, %,d bytes (%s): %s%n%s  %s%n", indent, s.kind().label(), s.offset(), s.length(),
                Revision.where(d.revisionBefore(), d.revisionAfter()), s.describe(), indent, a == null ? Meaning.of(s.kind()) : Meaning.of(s.kind(), a.verdict()));
    }

    /** A finding and, on the next line, what it means. */
    public static void finding(PrintWriter out, String indent, Finding f) {
        out.printf("%s%s at offset %,d (revision %s): %s%n%s  %s%n", indent, f.kind().label(), f.offset(), Revision.text(f.revision()), f.detail(),
                indent, Meaning.of(f.kind()));
    }

    /** A dropped transaction: where, its revision, its records, why. */
    public static String drop(Drop d) {
        return String.format("dropped transaction at offset %,d, revision %s, %d record(s): %s", d.offset(), Revision.text(d.revision()), d.records(),
                d.reason().text());
    }

    /** Up to {@code limit} affected keys, quoted, a line each, then how many more. */
    public static void affectedKeys(PrintWriter out, String indent, Account a, int limit) {
        a.affectedKeys().stream().limit(limit).forEach(k -> out.printf("%s%s%n", indent, KeyText.quote(k)));
        if (a.affectedKeys().size() > limit) out.printf("%s… %,d more%n", indent, a.affectedKeys().size() - limit);
    }
}
