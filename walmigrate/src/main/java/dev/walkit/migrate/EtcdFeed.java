package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A live etcd followed by its own watch stream, from the copy's revision + 1, with the previous value of every key
 * ({@code prev_kv}) and progress notifications: etcd sends a revision's events together, so each revision is one
 * transaction of the source, whole. A compaction past the revision the follow needs ends it with what to do. Nothing
 * is written to the source.
 */
final class EtcdFeed implements ChangeFeed {
    private final Client client;
    private final EtcdLiveSource ttls;
    private final String endpoints;
    private final byte[] prefix;
    /** A watch response and when it came (the lag in seconds is counted from here). */
    private record Delivered(WatchResponse response, long nanos) {
    }

    /** What the watch delivered, in order: responses, or the error that ended it. */
    private final LinkedBlockingQueue<Object> delivered = new LinkedBlockingQueue<>();
    /** Transactions read from the watch and not yet given (past a poll's {@code upTo}). */
    private final java.util.ArrayDeque<SourceTxn> later = new java.util.ArrayDeque<>();
    private Watch.Watcher watcher;
    private volatile long head;
    private long position = -1;

    private EtcdFeed(Client client, String endpoints, byte[] prefix) {
        this.client = client;
        this.endpoints = endpoints;
        this.prefix = prefix;
        this.ttls = EtcdLiveSource.at(client, 0, "", prefix);
    }

    /** The source etcd of {@code o} (endpoints, TLS, auth), connected; keys under {@code o}'s prefix. */
    static EtcdFeed open(MigrateOptions o) throws IOException {
        Client c = EtcdClients.build(o);
        try {
            EtcdClients.checkReachable(c, o);
            return new EtcdFeed(c, String.join(",", o.endpoints()), o.prefix().getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        return "etcd " + endpoints + " (followed)";
    }

    @Override
    public long position(long revision, long notAfter) throws IOException {
        long newest = headNow();
        if (revision == LATEST) revision = Math.min(newest, notAfter);
        if (revision > newest) {
            throw ChangeFeed.ahead("the source etcd", revision, newest);
        }
        position = revision;
        WatchOption.Builder w = WatchOption.builder().withRevision(revision + 1).withPrevKV(true).withProgressNotify(true);
        ByteSequence key;
        if (prefix.length == 0) {
            key = ByteSequence.from(new byte[] {0});
            w.withRange(ByteSequence.from(new byte[] {0})); // "\0" to "\0": every key
        } else {
            key = ByteSequence.from(prefix);
            w.isPrefix(true);
        }
        watcher = client.getWatchClient().watch(key, w.build(), new Watch.Listener() {
            @Override
            public void onNext(WatchResponse r) {
                delivered.add(new Delivered(r, System.nanoTime()));
            }

            @Override
            public void onError(Throwable t) {
                delivered.add(t);
            }

            @Override
            public void onCompleted() {
                delivered.add(new IOException("the source etcd ended the watch"));
            }
        });
        return revision;
    }

    @Override
    public KeySource state(long revision) throws IOException {
        return EtcdLiveSource.at(client, revision, "etcd " + endpoints + " at revision " + revision, prefix);
    }

    @Override
    public List<SourceTxn> poll(long waitMillis, long upTo) throws IOException {
        List<SourceTxn> ready = take(upTo);
        if (!ready.isEmpty()) return ready;
        Object first;
        try {
            first = delivered.poll(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (first == null) return ready;
        List<Object> batch = new ArrayList<>();
        batch.add(first);
        delivered.drainTo(batch);
        for (Object o : batch) {
            if (o instanceof Throwable t) throw failure(t);
            WatchResponse r = ((Delivered) o).response();
            long now = ((Delivered) o).nanos();
            head = Math.max(head, r.getHeader().getRevision());
            List<Change> changes = new ArrayList<>();
            long revision = -1;
            for (WatchEvent e : r.getEvents()) {
                long rev = e.getKeyValue().getModRevision();
                if (rev != revision && !changes.isEmpty()) {
                    later.add(new SourceTxn(revision, changes, now));
                    changes = new ArrayList<>();
                }
                revision = rev;
                changes.add(change(e));
            }
            if (!changes.isEmpty()) later.add(new SourceTxn(revision, changes, now));
        }
        return take(upTo);
    }

    /** The transactions read and not yet given, up to {@code upTo}. */
    private List<SourceTxn> take(long upTo) {
        List<SourceTxn> out = new ArrayList<>();
        while (!later.isEmpty() && later.peekFirst().revision() <= upTo) out.add(later.pollFirst());
        return out;
    }

    /** One event as a change: a put's value and lease, a delete; the value before from {@code prev_kv}. */
    private static Change change(WatchEvent e) {
        KeyValue kv = e.getKeyValue();
        KeyValue prev = e.getPrevKV();
        boolean hasPrev = prev != null && !prev.getKey().isEmpty();
        byte[] key = kv.getKey().getBytes();
        if (e.getEventType() == WatchEvent.EventType.DELETE) {
            return new Change(key, null, hasPrev ? prev.getValue().getBytes() : null, hasPrev, 0);
        }
        // A put of version 1 made the key; a later one without prev_kv: etcd's history before it was compacted.
        boolean known = hasPrev || kv.getVersion() == 1;
        return new Change(key, kv.getValue().getBytes(), hasPrev ? prev.getValue().getBytes() : null, known, kv.getLease());
    }

    private IOException failure(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof CompactedException)) c = c.getCause();
        if (c instanceof CompactedException ce) {
            return new IOException("the source etcd compacted its history to revision " + ce.getCompactedRevision() + ", past revision "
                    + position + " that this follow had to read on from: what changed in between cannot be read; migrate again into an "
                    + "empty target (and raise the source's --auto-compaction-retention while it runs)", t);
        }
        return t instanceof IOException io ? io : new IOException("the source etcd's watch failed: " + t.getMessage(), t);
    }

    @Override
    public long head() {
        return head;
    }

    @Override
    public long headNow() throws IOException {
        try {
            long h = client.getKVClient().get(ByteSequence.from(new byte[] {0}), GetOption.builder().withCountOnly(true).build())
                    .get(60, TimeUnit.SECONDS).getHeader().getRevision();
            head = Math.max(head, h);
            return h;
        } catch (Exception e) {
            throw new IOException("the source etcd did not answer: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean leaseIsTtl() {
        return false;
    }

    @Override
    public long ttlOf(long lease, long fallback) {
        return ttls.ttlOf(lease, fallback);
    }

    @Override
    public void close() {
        if (watcher != null) watcher.close();
        client.close();
    }
}
