package dev.walkit.doctor.serve;

import dev.walkit.format.account.Account;
import dev.walkit.format.account.Store;
import dev.walkit.format.pass.StoreHistory.EventVisitor;
import dev.walkit.format.pass.StoreHistory.Lease;
import dev.walkit.format.pass.StoreHistory.Visitor;

import java.util.Map;

/**
 * What the endpoint serves: a store's history, read-only, asked as etcd's API asks (a range at a revision, the events
 * of a watch, the leases), with the account of the pass that read it: the pass's {@link dev.walkit.format.pass.StoreHistory}
 * at a served revision, with what serve says beside it. The endpoint knows only this, plugged in from above (no cycle
 * between the packages).
 */
public interface History {
    /** The served view's revision: the last applied, or the one pinned. */
    long latest();

    /** The revision below which the history is compacted (0: none). */
    long compactRevision();

    /** What was read. */
    Store store();

    /** The one account of the pass that read the store: its verdict, damage and findings. */
    Account account();

    /**
     * Visits the keys of {@code [key, end)} live at {@code rev} in byte order ({@code end} null: {@code key} alone;
     * empty: every key from {@code key} on), and returns how many are live there. {@code materialize} is how many
     * to read and hand to {@code v} (0: count only); the count goes on past them. Without {@code values} the values are
     * not read out (a keys-only request).
     */
    long range(byte[] key, byte[] end, long rev, long materialize, boolean values, Visitor v);

    /** The events of {@code [key, end)} with revisions in {@code [from, to]}, in revision order; how many there were. */
    long events(long from, long to, byte[] key, byte[] end, EventVisitor v);

    /** The leases at the served revision, by ID. */
    Map<Long, Lease> leases();

    /** Adds a key served beside the store's, at the served revision (what serve says of the damage), under {@code walkit/}. */
    void overlay(byte[] key, byte[] value);
}
