package dev.walkit.migrate;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.render.AccountText;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Store;
import dev.walkit.format.assess.Assessment;
import dev.walkit.format.pass.Level;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PassReport;
import dev.walkit.format.policy.RecoveryPolicy;

import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What walmigrate copies from a stored source (a WAL, kine's state.db, an etcd db): the pass's verdict, the one
 * walverify and waldoctor diagnose give for the same bytes, never a rule of walmigrate's own.
 * <ul>
 * <li>healthy: the source whole (exit 0);</li>
 * <li>a torn tail only: the complete transactions, which is what the store itself keeps at its next start; said in
 * one line, exit 1;</li>
 * <li>damage: nothing, exit 3, unless {@code --policy} says what to keep (a WAL: that policy's replay, refused where
 * walrecover refuses it, the loss said in one line).</li>
 * </ul>
 */
final class SourceGate {
    private SourceGate() {
    }

    /** A source the gate refused: its one line; exit 3 (the verdict's code). */
    static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    /** What the gate says of a source it let through: a line for stderr (null: healthy), and the least exit code of the run. */
    record Said(String note, ExitCode floor) {
        static final Said HEALTHY = new Said(null, ExitCode.OK);

        /** The run's exit code: {@code code}, or this floor when the run itself went well. */
        int exit(ExitCode code) {
            return code == ExitCode.OK ? floor.code() : code.code();
        }
    }

    /** A WAL: one replay gives the verdict and the state copied (under {@code policy}'s replay when it is damaged). */
    static WalSource wal(Path path, RecoveryPolicy policy) throws IOException {
        Pass.Replayed r = Pass.replay(path, null);
        try {
            Account a = r.report().account();
            if (a.verdict() == Assessment.Verdict.HEALTHY || a.verdict() == Assessment.Verdict.TORN_TAIL) {
                return WalSource.of(r, said(a, r.report().path()));
            }
            if (policy == null) throw refused(a, r.report().path());
            if (!policy.replaysAsTheRules()) {
                r.close();
                r = Pass.replay(path, policy);
            }
            String refusal = r.replay().refusal(policy);
            if (refusal != null) throw new Refused(r.report().path() + ": " + refusal);
            return WalSource.of(r, new Said(r.report().path() + " is damaged (" + AccountText.damageSummary(a) + "); policy " + policy.label()
                    + ": copying what it keeps, revision " + r.replay().revision() + ", " + String.format("%,d", r.replay().liveCount())
                    + " live keys (`walrecover --dry-run --policy " + policy.label() + " " + r.report().path() + "` lists what is lost)", ExitCode.OK));
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /**
     * kine's state.db or an etcd db: the pass's verdict on it; what the gate says when it may be copied. A damaged one is
     * refused, unless {@code --policy salvage} (as walrecover: only salvage writes past a store's own damage) copies
     * what the pass read past it (the salvage past the tree or past SQLite), saying so.
     */
    static Said store(Path path, RecoveryPolicy policy) throws IOException {
        return store(Pass.read(path, Level.SEMANTIC, null), path, policy);
    }

    /** {@link #store(Path, RecoveryPolicy)} on the pass's report {@code p} of {@code path}, read already. */
    static Said store(PassReport p, Path path, RecoveryPolicy policy) throws Refused {
        Account a = p.account();
        if (a.verdict() == Assessment.Verdict.HEALTHY || a.verdict() == Assessment.Verdict.TORN_TAIL) return said(a, p.path());
        if (policy instanceof dev.walkit.format.policy.Salvage) {
            return new Said(p.path() + " is damaged (" + AccountText.damageSummary(a) + "); policy salvage: copying what was read past the damage, revision "
                    + a.lastRevision() + ", " + String.format("%,d", a.liveKeys()) + " live keys (`walrecover --dry-run " + p.path()
                    + "` lists what is lost and uncertain)", ExitCode.OK);
        }
        throw new Refused(damaged(a, path) + "`waldoctor diagnose " + path + "` lists the damage" + (policy == null ? ""
                : " (policy " + policy.label() + " keeps a damaged WAL's transactions; past the " + a.store().kind().title()
                + "'s own damage only --policy salvage copies, as walrecover writes)"));
    }

    /** "PATH: the STORE is damaged (the first damage; N more): nothing copied; " */
    static String damaged(Account a, Path path) {
        List<String> what = new ArrayList<>(a.store().damage());
        for (DamageLocator.Located d : a.damage()) what.add(d.span().kind().label() + " at offset " + d.span().offset());
        for (Finding f : a.findings()) what.add(f.kind().label() + (f.revision() >= 0 ? " at revision " + f.revision() : "") + ": " + f.detail());
        long all = a.store().damage().size() + a.damage().size() + a.findingCount();
        return path + ": the " + a.store().kind().title() + " is damaged (" + (what.isEmpty() ? AccountText.damageSummary(a) : what.get(0)
                + (all > 1 ? "; " + (all - 1) + " more" : "")) + "): nothing copied; ";
    }

    /** kine's state.db (refused in its reader's words when it is none), judged by the pass; keys in kine's order unless {@code ordered}. */
    static KeySource kine(Path path, boolean ordered, RecoveryPolicy policy) throws IOException {
        // One open of the db: the pass's check of it, then its keys (a file that is none is refused in the kine reader's words).
        Pass.KineRead read = Pass.kine(path, ordered);
        try {
            Said said = store(read.report(), path, policy);
            return KeySource.gated(KineSource.of(path, read), said);
        } catch (IOException | RuntimeException e) {
            read.close();
            throw e;
        }
    }

    /** An etcd db or data directory (refused in its reader's words when it is none), judged by the pass. */
    static KeySource etcdDb(Path path, RecoveryPolicy policy) throws IOException {
        if (kindOf(path) != Store.Kind.ETCD_DB) return EtcdDbSource.open(path); // says it is not an etcd db
        Said said = store(path, policy);
        return KeySource.gated(EtcdDbSource.open(path, policy instanceof dev.walkit.format.policy.Salvage), said);
    }

    /** The store {@code path} is, sniffed by the pass; null when it is no file the pass reads (its reader then says what it is). */
    private static Store.Kind kindOf(Path path) {
        try {
            return Pass.input(path).kind();
        } catch (IOException e) {
            return null;
        }
    }

    private static Said said(Account a, Path path) {
        if (a.verdict() == Assessment.Verdict.HEALTHY) return Said.HEALTHY;
        return new Said(path + ": a torn tail (" + AccountText.damageSummary(a) + ") is left out, as the store drops it at its next start: "
                + "the complete transactions are copied", ExitCode.TAIL_ONLY);
    }

    private static Refused refused(Account a, Path path) {
        return new Refused(damaged(a, path) + "`walrecover --dry-run " + path
                + "` says what a salvage keeps, and --policy " + String.join("|", RecoveryPolicy.labels().stream().filter(l -> !l.equals("absolute")).toList())
                + " copies what that policy keeps");
    }
}
