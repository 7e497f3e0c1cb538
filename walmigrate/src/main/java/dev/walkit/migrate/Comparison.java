package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code walmigrate verify}: the source's live set against the target, merged as two key-ordered
 * streams (the target read in pages): counts, missing, extra and different (values compared byte for byte).
 */
public record Comparison(long sourceKeys, long targetKeys, long same, List<byte[]> missing, long missingCount, List<byte[]> extra,
                         long extraCount, List<byte[]> different, long differentCount, List<String> differentWhy) {
    private static final int PAGE = 1000;
    /** A page of the target holds about this many bytes: its key count follows the values' sizes seen so far. */
    static final long PAGE_BYTES = 16L << 20;

    public Comparison {
        missing = List.copyOf(missing);
        extra = List.copyOf(extra);
        different = List.copyOf(different);
    }

    public boolean equal() {
        return missingCount == 0 && extraCount == 0 && differentCount == 0;
    }

    /** The counts as the merge makes them. */
    private static final class Counts {
        long sourceKeys;
        long targetKeys;
        long same;
        final List<byte[]> missing = new ArrayList<>();
        final List<byte[]> extra = new ArrayList<>();
        final List<byte[]> different = new ArrayList<>();
        /** Beside each listed difference: "value" or what differs of the lease. */
        final List<String> differentWhy = new ArrayList<>();
        long missingCount;
        long extraCount;
        long differentCount;

        Comparison done() {
            return new Comparison(sourceKeys, targetKeys, same, missing, missingCount, extra, extraCount, different, differentCount, differentWhy);
        }
    }

    public static Comparison run(KeySource source, MigrateOptions o) throws Exception {
        return run(source, o, key -> false);
    }

    /** As above, passing over the target's keys {@code notData} says are no source's (a follow's marker). */
    static Comparison run(KeySource source, MigrateOptions o, java.util.function.Predicate<byte[]> notData) throws Exception {
        byte[] prefix = o.prefix().getBytes(StandardCharsets.UTF_8);
        try (Client client = EtcdClients.build(o)) {
            EtcdClients.checkReachable(client, o);
            Iterator<KeyValue> target = new Filtered(new TargetScan(client, prefix), notData);
            LeaseTtls ttls = new LeaseTtls(client);
            return merge(KeySource.under(source, prefix), target, t -> t.getKey().getBytes(),
                    (s, t) -> !t.getValue().equals(Migrator.wrap(s.value())) ? "value" // compared in place: no copy, no digest
                            : leaseDifference(s.lease() <= 0 ? 0 : source.ttlOf(s.lease(), ANY_TTL), t.getLease(), ttls));
        }
    }

    /**
     * Two key-ordered sources compared with no etcd between them (a follow's offline output against its source): keys,
     * values, and leases ({@code stored}: a source lease as the output stores it, its ID or its TTL).
     */
    static Comparison between(KeySource source, KeySource target, java.util.function.LongUnaryOperator stored) throws Exception {
        return merge(source, target, SourceKey::key, (s, t) -> {
            long want = s.lease() <= 0 ? 0 : stored.applyAsLong(s.lease());
            return !Arrays.equals(s.value(), t.value()) ? "value"
                    : want != Math.max(0, t.lease()) ? "lease: " + want + " in the source, " + t.lease() + " in the output" : null;
        });
    }

    /** What differs of a key both sides hold ("value", what of the lease), or null. */
    @FunctionalInterface
    private interface Difference<T> {
        String of(SourceKey source, T target) throws Exception;
    }

    /** The source and the target, both in ascending key order, merged: each key missing, extra, the same or different. */
    private static <T> Comparison merge(Iterator<SourceKey> source, Iterator<T> target, java.util.function.Function<T, byte[]> keyOf, Difference<T> differs)
            throws Exception {
        Counts c = new Counts();
        SourceKey s = source.hasNext() ? source.next() : null;
        T t = target.hasNext() ? target.next() : null;
        while (s != null || t != null) {
            int cmp = s == null ? 1 : t == null ? -1 : Arrays.compareUnsigned(s.key(), keyOf.apply(t));
            if (cmp < 0) {
                c.sourceKeys++;
                c.missingCount++;
                add(c.missing, s.key());
                s = source.hasNext() ? source.next() : null;
            } else if (cmp > 0) {
                c.targetKeys++;
                c.extraCount++;
                add(c.extra, keyOf.apply(t));
                t = target.hasNext() ? target.next() : null;
            } else {
                c.sourceKeys++;
                c.targetKeys++;
                String why = differs.of(s, t);
                if (why == null) {
                    c.same++;
                } else {
                    c.differentCount++;
                    if (c.different.size() < MigrationReport.MAX_LISTED) c.differentWhy.add(why);
                    add(c.different, s.key());
                }
                s = source.hasNext() ? source.next() : null;
                t = target.hasNext() ? target.next() : null;
            }
        }
        return c.done();
    }

    /** A WAL's leases are granted anew with the migration's --lease-ttl: any TTL is theirs, only being attached counts. */
    static final long ANY_TTL = -1;

    /**
     * What differs of a key's lease, or null: attached on one side only, or a TTL other than the source's class
     * ({@code wantTtl}: kine's TTL (its lease ID is its TTL); {@link #ANY_TTL} for a WAL's; 0 for none).
     */
    static String leaseDifference(long wantTtl, long targetLease, LeaseTtls ttls) throws Exception {
        if (wantTtl == 0 && targetLease == 0) return null;
        if (wantTtl == 0) return "lease: none in the source, " + Long.toHexString(targetLease) + " in the target";
        if (targetLease == 0) return "lease: " + (wantTtl == ANY_TTL ? "one" : "a TTL of " + wantTtl + " s") + " in the source, none in the target";
        if (wantTtl == ANY_TTL) return null;
        long granted = ttls.granted(targetLease);
        return granted == wantTtl ? null : "lease: a TTL of " + wantTtl + " s in the source, " + granted + " s in the target";
    }

    /** The granted TTL of each target lease, asked once. */
    static final class LeaseTtls {
        private final Client client;
        private final java.util.Map<Long, Long> ttl = new java.util.HashMap<>();

        LeaseTtls(Client client) {
            this.client = client;
        }

        long granted(long lease) throws Exception {
            Long t = ttl.get(lease);
            if (t == null) {
                t = client.getLeaseClient().timeToLive(lease, io.etcd.jetcd.options.LeaseOption.DEFAULT).get(60, TimeUnit.SECONDS).getGrantedTTL();
                ttl.put(lease, t);
            }
            return t;
        }
    }

    private static void add(List<byte[]> l, byte[] key) {
        if (l.size() < MigrationReport.MAX_LISTED) l.add(key);
    }

    /** The keys of {@code in} that are data (not those {@code skip} names). */
    private static final class Filtered implements Iterator<KeyValue> {
        private final Iterator<KeyValue> in;
        private final java.util.function.Predicate<byte[]> skip;
        private KeyValue next;

        Filtered(Iterator<KeyValue> in, java.util.function.Predicate<byte[]> skip) {
            this.in = in;
            this.skip = skip;
        }

        @Override
        public boolean hasNext() {
            while (next == null && in.hasNext()) {
                KeyValue kv = in.next();
                if (!skip.test(kv.getKey().getBytes())) next = kv;
            }
            return next != null;
        }

        @Override
        public KeyValue next() {
            if (!hasNext()) throw new java.util.NoSuchElementException();
            KeyValue kv = next;
            next = null;
            return kv;
        }
    }

    /** The target's keys under the prefix, ascending, a page at a time. */
    static final class TargetScan implements Iterator<KeyValue> {
        private final Client client;
        private final byte[] end;
        private byte[] from;
        private List<KeyValue> page = List.of();
        private int i;
        private boolean more = true;
        /** Keys asked for a page: at most {@link #PAGE}, fewer when values are large (about {@link #PAGE_BYTES} a page). */
        private int limit = PAGE;
        private final long revision;
        /** The next page, asked for as soon as the one before came: null when none is. */
        private java.util.concurrent.CompletableFuture<GetResponse> ahead;

        TargetScan(Client client, byte[] prefix) {
            this(client, prefix, 0);
        }

        /** At {@code revision} (0: the latest): every page of one consistent view. */
        TargetScan(Client client, byte[] prefix, long revision) {
            this.client = client;
            this.revision = revision;
            // etcd refuses an empty key: with no prefix, start at "\0", the smallest key there is.
            this.from = prefix.length == 0 ? new byte[] {0} : prefix;
            this.end = prefixEnd(prefix);
        }

        @Override
        public boolean hasNext() {
            if (i < page.size()) return true;
            if (!more) return false;
            try {
                GetResponse r = null;
                if (ahead != null) {
                    try {
                        r = ahead.get(60, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        if (!String.valueOf(e.getMessage()).contains("RESOURCE_EXHAUSTED")) throw e;
                        limit = Math.max(1, limit / 2); // asked again below, smaller
                    }
                    ahead = null;
                }
                if (r == null) r = page();
                page = r.getKvs();
                long bytes = 0;
                for (KeyValue kv : page) bytes += kv.getKey().size() + kv.getValue().size();
                if (!page.isEmpty()) limit = (int) Math.max(1, Math.min(PAGE, PAGE_BYTES / Math.max(1, bytes / page.size())));
                i = 0;
                more = r.isMore();
                if (!page.isEmpty()) {
                    byte[] last = page.get(page.size() - 1).getKey().getBytes();
                    from = Arrays.copyOf(last, last.length + 1); // the next key after the last
                }
                // The next page asked for now, read while this one is used (a merge's other side reads at the same time).
                if (more && !page.isEmpty()) ahead = client.getKVClient().get(ByteSequence.from(from), option());
                return !page.isEmpty();
            } catch (Exception e) {
                throw new IllegalStateException("reading the target failed: " + e.getMessage(), e);
            }
        }

        @Override
        public KeyValue next() {
            return page.get(i++);
        }

        /**
         * One page; asked again with half as many keys when the answer would exceed what gRPC takes. etcd gives a range
         * in ascending key order as it stands; asked to sort it (even by key, ascending), etcd 3.4 reads the whole rest
         * of the range for every page and truncates after: 93 ms a page of 1,000 keys of 1 KB out of 100,000, against 21.
         */
        private GetResponse page() throws Exception {
            for (;;) {
                try {
                    return client.getKVClient().get(ByteSequence.from(from), option()).get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (limit == 1 || !String.valueOf(e.getMessage()).contains("RESOURCE_EXHAUSTED")) throw e;
                    limit = Math.max(1, limit / 2);
                }
            }
        }

        private GetOption option() {
            return GetOption.builder().withRange(ByteSequence.from(end)).withLimit(limit).withRevision(revision).build();
        }

        /** The range end of a prefix: etcd's convention ("\0" for all keys). */
        static byte[] prefixEnd(byte[] prefix) {
            byte[] end = Arrays.copyOf(prefix, prefix.length);
            for (int j = end.length - 1; j >= 0; j--) {
                if (end[j] != (byte) 0xFF) {
                    end[j]++;
                    return Arrays.copyOf(end, j + 1);
                }
            }
            return new byte[] {0};
        }
    }
}
