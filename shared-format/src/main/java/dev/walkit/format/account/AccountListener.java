package dev.walkit.format.account;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.group.Transaction;
import dev.walkit.format.WalEntry;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.DropReason;
import dev.walkit.format.replay.Replayer;
import dev.walkit.format.replay.RevisionAccount;

import java.util.ArrayList;
import java.util.List;

/**
 * What a replay tells, gathered into its {@link Account}: every record read (records, revisions), every damaged span
 * located between the revisions around it, every drop with its keys and its reason, every key whose chain a record
 * applied as stored broke. A tool that wants more of the replay extends it and calls {@code super} for these.
 */
public class AccountListener implements Replayer.Listener {
    /** The keys of the valid records in {@code [from, to)} (an incomplete transaction's), from the file read. */
    @FunctionalInterface
    public interface KeysIn {
        List<byte[]> keys(long from, long to);

        /** The key still legible at the start of the damaged span {@code [from, to)}, or null (none: by default). */
        default byte[] legibleKey(long from, long to) {
            return null;
        }

        /**
         * The key legible at the start of bytes that form no record, when they start as a record would (a header in the
         * writer's canonical form: the record that random bytes overwrote from within), or null (by default).
         */
        default byte[] claimedKey(long from, long to) {
            return null;
        }
    }

    private final List<DamageLocator.Located> damage = new ArrayList<>();
    private final DamageLocator locator;
    private final List<Drop> drops = new ArrayList<>();
    private final List<byte[]> brokenChains = new ArrayList<>();

    public AccountListener() {
        this(null);
    }

    /** {@code located}, when not null, is told each damaged span as soon as it is located (--jsonl streams it). */
    public AccountListener(java.util.function.Consumer<DamageLocator.Located> located) {
        this.locator = new DamageLocator(located == null ? damage::add : x -> {
            damage.add(x);
            located.accept(x);
        });
    }

    @Override
    public void read(long offset, long revision) {
        locator.record(revision);
    }

    /**
     * Goes on from a replay that stopped after reading {@code records} valid records, from revision {@code firstRevision}
     * to {@code lastRevision}, with nothing else to account for (a {@link dev.walkit.format.replay.Replayer.Checkpoint}).
     */
    public void resume(long records, long firstRevision, long lastRevision) {
        if (locator.records() != 0) throw new IllegalStateException("an account resumes before it reads");
        locator.records(records, firstRevision, lastRevision, lastRevision);
    }

    @Override
    public void damage(DamageSpan span) {
        locator.damage(span);
    }

    @Override
    public void dropped(Transaction txn, DropReason why) {
        List<byte[]> keys = new ArrayList<>(txn.records());
        for (WalEntry e : txn.entries()) keys.add(e.key());
        drops.add(new Drop(txn.offset(), txn.revision(), txn.records(), keys, why));
    }

    @Override
    public void keptBreak(Finding f, byte[] key) {
        brokenChains.add(key);
    }

    /** True when replay applied no write of {@code key} at or after revision {@code revision} (unknown, -1: none after it either). */
    private static boolean noLaterWrite(dev.walkit.format.replay.KeyIndex index, byte[] key, long revision) {
        dev.walkit.format.replay.KeyState st = index.get(key);
        return st == null || st.modRevision() < Math.max(0, revision);
    }

    /** The highest revision of a valid record read so far, applied or not; -1 before any. */
    public long lastRevisionRead() {
        return locator.lastRevision();
    }

    /** The keys whose chain a record applied as stored broke, in the order found (a key once per break). */
    public List<byte[]> brokenChains() {
        return java.util.Collections.unmodifiableList(brokenChains);
    }

    /**
     * The account of the replay {@code s} that told this listener, of a log of {@code logBytes} (for a store, its WAL
     * form's); an incomplete transaction's keys read by {@code keysIn} (null: none named).
     */
    public Account account(Store store, Replayer s, long logBytes, KeysIn keysIn) {
        locator.end();
        List<Drop> all = new ArrayList<>(drops);
        for (Finding f : s.findings()) {
            if (f.kind() != DamageKind.INCOMPLETE_TRANSACTION) continue;
            List<byte[]> keys = keysIn == null ? List.of() : keysIn.keys(f.offset(), f.offset() + f.length());
            all.add(new Drop(f.offset(), f.revision(), f.records(), keys, new DropReason.Incomplete(f)));
        }
        all.sort(java.util.Comparator.comparingLong(Drop::offset));
        // A key's latest state is uncertain when a write of it may be lost after the last one replay applied: a dropped
        // transaction's keys (not a repeat of a revision already applied), and the keys still legible in a record whose
        // CRC fails (its header and key usually survive: probably written in the lost window), each unless a later write
        // of the key was applied. (A broken chain is a lost write before one that was applied: history, not the latest
        // state, which the findings and walrecover's report name.)
        dev.walkit.format.replay.KeyIndex index = s.keys();
        List<byte[]> uncertain = new ArrayList<>();
        for (Drop d : all) {
            if (d.reason().finding() != null && (d.reason().finding().kind() == DamageKind.REVISION_REGRESSION
                    || d.reason().finding().kind() == DamageKind.DUPLICATED_RECORD)) {
                continue;
            }
            for (byte[] k : d.keys()) if (noLaterWrite(index, k, d.revision())) uncertain.add(k);
        }
        if (keysIn != null) {
            for (DamageLocator.Located l : damage) {
                DamageKind kind = l.span().kind();
                // A span where a record starts: its CRC, its header or its end damaged; bytes that form no record only
                // when they start as the writer lays a header out (a record overwritten from within).
                if (kind == DamageKind.CRC_RANGE_BUG) continue;
                // Such a key counts only when the log wrote it elsewhere: an overwrite that starts inside the key leaves
                // a key that never was.
                byte[] k = kind == DamageKind.GARBAGE_SPAN ? keysIn.claimedKey(l.span().offset(), l.span().end())
                        : keysIn.legibleKey(l.span().offset(), l.span().end());
                if (k != null && kind == DamageKind.GARBAGE_SPAN && index.get(k) == null) k = null;
                if (k != null && noLaterWrite(index, k, l.revisionBefore() + 1)) uncertain.add(k);
            }
        }
        long leases = store.leases() >= 0 ? store.leases() : s.leases().keysByLease().size();
        // Transactions read whole, as every level counts them (a read without replay counts each closing record): the
        // applied and those a rule or the policy dropped; an incomplete one's close was never read.
        return new Account(store, store.records() >= 0 ? store.records() : locator.records(), s.transactions() + drops.size(), locator.firstRevision(),
                locator.lastRevision(), s.compactRevision() > 0 ? s.compactRevision() : -1, s.keys().liveCount(), s.keys().tombstoneCount(),
                leases, RevisionAccount.of(s, damage), damage, s.findings(), s.findingTotal(), all, Account.affected(uncertain),
                Account.verdict(store, damage, s.findings(), logBytes));
    }
}
