package dev.walkit.format.account;

import dev.walkit.format.assess.Assessment;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.RevisionAccount;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The one account of what a pass over a store read, kept and lost: made once by the engine ({@link AccountListener}
 * for a replay, {@link #scan} for a read without one), printed by every tool and every view of the shell; no tool
 * counts again. Its words are docs/format.md's ("Counting revisions").
 *
 * @param store          what was read: for an etcd db or a kine db the store's own facts, not its private WAL form's
 * @param records        the records read (an etcd db: the revisions it holds; kine: its rows)
 * @param transactions   transactions read whole, each snapshot-prefix record one: at every level the same count (a read
 *                       without replay counts each closing record; a replay, the applied and those a rule or the policy
 *                       dropped; an incomplete transaction, whose close was never read, is in neither); the applied
 *                       are {@code revisions.applied}
 * @param firstRevision  the first revision read (with a snapshot prefix: its marker's, the compact revision), -1: none
 * @param lastRevision   the highest revision read, -1: none
 * @param compactRevision the snapshot prefix's revision, -1: none
 * @param liveKeys       keys live after replay, -1 without one
 * @param tombstones     keys deleted after replay, -1 without one
 * @param leases         leases (the store's own count, else those live keys carry), -1 without replay
 * @param revisions      where the revisions went (applied, dropped, in damaged bytes, skipped), null without replay
 * @param damage         damaged spans, with the revisions on either side
 * @param findings       rules broken, as found: a listing, of at most {@link dev.walkit.format.replay.Replayer#MAX_FINDINGS_KEPT}
 *                       besides the incomplete transactions (every one of which is kept: decisions read them)
 * @param findingCount   every finding, listed or not
 * @param drops          transactions read and not applied, each with its keys and its reason
 * @param affectedKeys   keys whose latest state is uncertain: those of dropped transactions (not repeats of an applied
 *                       revision), then those still legible in a record whose CRC fails (probably written in the lost
 *                       window), each once and only when no later write of the key was applied (measured against the
 *                       generator's truth: AffectedKeysTest)
 * @param verdict        healthy, torn tail only, damaged, or rules broken
 */
public record Account(Store store, long records, long transactions, long firstRevision, long lastRevision, long compactRevision,
                      long liveKeys, long tombstones, long leases, RevisionAccount revisions,
                      List<DamageLocator.Located> damage, List<Finding> findings, long findingCount, List<Drop> drops, List<byte[]> affectedKeys,
                      Assessment.Verdict verdict) {
    public Account {
        damage = List.copyOf(damage);
        findings = List.copyOf(findings);
        drops = List.copyOf(drops);
        affectedKeys = List.copyOf(affectedKeys);
    }

    /**
     * A read without replay (walverify's frame and decode levels): what was read and the damage; no state.
     * {@code logBytes}: the size of the log read (for a store, its WAL form's), where a torn tail would end.
     */
    public static Account scan(Store store, long records, long transactions, long firstRevision, long lastRevision, long compactRevision,
                               long logBytes, List<DamageLocator.Located> damage, List<Finding> findings) {
        return new Account(store, store.records() >= 0 ? store.records() : records, transactions, firstRevision, lastRevision,
                compactRevision > 0 ? compactRevision : -1, -1, -1, -1, null, damage, findings, findings.size(), List.of(), List.of(),
                verdict(store, damage, findings, logBytes));
    }

    /** A log the light replay found clean ({@code c}: no damage, no finding, nothing dropped). */
    public static Account clean(Store store, dev.walkit.format.replay.CleanReplay c, long logBytes) {
        return new Account(store, store.records() >= 0 ? store.records() : c.records(), c.transactions(), c.firstRecordRevision(),
                c.maxRecordRevision(), c.compactRevision() > 0 ? c.compactRevision() : -1, c.liveCount(), c.tombstoneCount(),
                store.leases(), c.revisionAccount(), List.of(), List.of(), 0, List.of(), List.of(), verdict(store, List.of(), List.of(), logBytes));
    }

    /**
     * A store's WAL form replayed ({@link dev.walkit.format.replay.FormReplay#run(dev.walkit.format.replay.FormReplay.Form,
     * dev.walkit.format.replay.Replayer.Listener)} with {@code listener}); {@code store} is what the store says of itself.
     */
    public static Account ofForm(Store store, dev.walkit.format.replay.FormReplay.Result r, AccountListener listener) {
        // The form is made, not read: no span of it can be torn at its end.
        if (r.full() == null) return clean(store, r.clean(), Long.MAX_VALUE);
        return listener.account(store, r.full(), Long.MAX_VALUE, null);
    }

    /** The verdict: the log's {@link Assessment}, or damaged when the store's own format is. */
    static Assessment.Verdict verdict(Store store, List<DamageLocator.Located> damage, List<Finding> findings, long logBytes) {
        return Assessment.of(damage.stream().map(DamageLocator.Located::span).toList(), findings, logBytes).verdictWith(store.damage().size());
    }

    /** The keys of {@code drops}, then {@code brokenChains}, each once, in that order. */
    /** {@code keys}, each once, in the order given. */
    static List<byte[]> affected(List<byte[]> keys) {
        Set<ByteBuffer> seen = new LinkedHashSet<>();
        List<byte[]> out = new ArrayList<>();
        for (byte[] k : keys) if (seen.add(ByteBuffer.wrap(k))) out.add(k);
        return out;
    }

    /**
     * What was read only, as below the semantic level: the store, the records, transactions and revisions, the damage;
     * not what the rules or the state say (a store's form is replayed at every level so that its counts are the one
     * account's).
     */
    public Account read() {
        return scan(store, records, transactions, firstRevision, lastRevision, compactRevision, Long.MAX_VALUE, damage, List.of());
    }

    public boolean healthy() {
        return verdict == Assessment.Verdict.HEALTHY;
    }

    /** The findings the listing leaves out (past its cap): 0 but for a log with more rule findings than a report can list. */
    public long findingsLeftOut() {
        return findingCount - findings.size();
    }

    /** Whether a replay made it (live keys, the revisions' account); false for a read without one. */
    public boolean replayed() {
        return revisions != null;
    }

    /** The revisions damaged bytes may have held (0 without replay: not known). */
    public long lostUpTo() {
        return revisions == null ? 0 : revisions.damagedUpTo();
    }

    /** This account with the findings a pass makes beside the log (a leftover compaction), the verdict judged again. */
    public Account withFinding(Finding f, long logBytes) {
        List<Finding> all = new ArrayList<>(findings);
        all.add(f);
        return new Account(store, records, transactions, firstRevision, lastRevision, compactRevision, liveKeys, tombstones, leases,
                revisions, damage, all, findingCount + 1, drops, affectedKeys, verdict(store, damage, all, logBytes));
    }
}
