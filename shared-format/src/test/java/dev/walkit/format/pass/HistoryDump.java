package dev.walkit.format.pass;

import dev.walkit.format.KeyQuote;
import dev.walkit.format.KeyValue;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Drop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Everything a {@link StoreHistory} answers, as text: the account field by field, the replay's facts, and the answers
 * the shell and serve ask (get, range with and without values, each key's history, the events in revision order, the
 * leases, the changes, the transactions) at several revisions. Two histories of one store answer alike when their dumps
 * are equal: what the saved index's tests compare.
 */
public final class HistoryDump {
    private HistoryDump() {
    }

    public static String of(StoreHistory x) {
        StringBuilder b = new StringBuilder();
        b.append(account(x.account())).append('\n');
        b.append("format ").append(x.format()).append(" revision ").append(x.revision()).append(" compact ").append(x.compactRevision())
                .append(" leases ").append(x.leaseMetadata()).append(" findings ").append(x.findingCounts()).append(" records ").append(x.records())
                .append('\n');
        long last = x.revision();
        long[] revs = {0, 1, Math.max(1, last / 3), Math.max(1, last / 2), Math.max(0, last - 1), last, Long.MAX_VALUE};
        List<byte[]> keys = x.keys(new byte[0]);
        b.append(keys.size()).append(" keys\n");
        for (byte[] k : keys) {
            b.append(KeyQuote.quote(k)).append(" ever ").append(x.ever(k)).append('\n');
            for (KeyValue kv : x.events(k)) b.append("  ").append(kv(kv)).append(" lower-bound ").append(x.versionIsLowerBound(kv)).append('\n');
            for (long r : revs) {
                KeyValue kv = x.get(k, r);
                if (kv != null) b.append("  at ").append(r).append(' ').append(kv(kv)).append('\n');
            }
        }
        for (long r : revs) {
            List<String> seen = new ArrayList<>();
            long n = x.range(new byte[0], new byte[0], r, 25, true, kv -> seen.add(kv(kv)));
            List<String> keysOnly = new ArrayList<>();
            long m = x.range("/registry/".getBytes(), StoreHistory.prefixEnd("/registry/".getBytes()), r, 10, false, kv -> keysOnly.add(kv(kv)));
            b.append("range at ").append(r).append(": ").append(n).append(' ').append(seen).append(" keys only ").append(m).append(' ')
                    .append(keysOnly).append('\n');
            b.append("leases at ").append(r).append(": ");
            x.leases(r).forEach((id, l) -> b.append(id).append('/').append(l.grantedTtl()).append('/').append(quote(l.keys())).append(' '));
            b.append('\n');
        }
        List<String> events = new ArrayList<>();
        long next = x.events(0, Long.MAX_VALUE - 1, new byte[0], new byte[0], Math.max(0, x.compactRevision()),
                (kv, prev) -> events.add(kv(kv) + " prev " + (prev == null ? "-" : kv(prev))));
        b.append("events to ").append(next).append(": ").append(String.join("\n", events)).append('\n');
        x.changes(1, last, (k, kind, before, after) -> {
            b.append("change ").append(KeyQuote.quote(k)).append(' ').append(kind).append(' ').append(before).append(' ').append(after).append('\n');
            return true;
        });
        TreeSet<String> tallies = new TreeSet<>();
        x.forEachKey((k, writes, live, len) -> tallies.add(KeyQuote.quote(k) + " " + writes + " " + live + " " + len));
        b.append("tallies ").append(tallies).append('\n');
        long[] applied = new long[2];
        x.forEachAppliedRevision(r -> {
            applied[0]++;
            applied[1] = applied[1] * 31 + r;
        });
        b.append("applied ").append(Arrays.toString(applied)).append('\n');
        for (int t = 0; t < x.transactionCount(); t++) {
            b.append("txn ").append(t).append(" rev ").append(x.txnRevision(t)).append(" at ").append(x.txnOffset(t)).append(" records ")
                    .append(x.txnRecords(t)).append(" keys ").append(quote(x.txnKeys(t))).append(" index ").append(x.txnIndex(x.txnRevision(t)))
                    .append(" before ").append(x.lastTxnAtOrBefore(x.txnOffset(t))).append('\n');
        }
        x.leaseMetadata().keysByLease().keySet().forEach(id -> b.append("on lease ").append(id).append(' ').append(quote(x.liveOnLease(id))).append('\n'));
        return b.toString();
    }

    static String kv(KeyValue kv) {
        return kv + "#" + Arrays.hashCode(kv.value());
    }

    static List<String> quote(List<byte[]> keys) {
        return keys.stream().map(KeyQuote::quote).toList();
    }

    /** The account field by field, its keys quoted. */
    public static String account(Account a) {
        StringBuilder b = new StringBuilder();
        b.append(a.store()).append(" records ").append(a.records()).append(" transactions ").append(a.transactions()).append(" revisions ")
                .append(a.firstRevision()).append("..").append(a.lastRevision()).append(" compact ").append(a.compactRevision()).append(" live ")
                .append(a.liveKeys()).append(" tombstones ").append(a.tombstones()).append(" leases ").append(a.leases()).append(' ')
                .append(a.revisions()).append(" damage ").append(a.damage()).append(" findings ").append(a.findings()).append(" of ")
                .append(a.findingCount());
        for (Drop d : a.drops()) {
            b.append(" drop ").append(d.offset()).append('/').append(d.revision()).append('/').append(d.records()).append('/').append(quote(d.keys()))
                    .append('/').append(d.reason());
        }
        b.append(" affected ").append(quote(a.affectedKeys())).append(' ').append(a.verdict());
        return b.toString();
    }
}
