package dev.walkit.migrate;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.etcd.jetcd.options.GetOption;
import io.netty.handler.ssl.SslContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A live etcd followed by its own watch stream, from the copy's revision + 1, with the previous value of every key
 * ({@code prev_kv}) and progress notifications: etcd sends a revision's events together, so each revision is one
 * transaction of the source, whole. The watch is {@link EtcdWatchStream} (grpc-java's own stub, made again on the next
 * endpoint when the one it is on fails); reads and leases are the jetcd client's. A compaction past the revision the
 * follow needs ends it with what to do. Nothing is written to the source.
 */
final class EtcdFeed implements ChangeFeed {
    private final Client client;
    private final EtcdLiveSource ttls;
    private final MigrateOptions options;
    private final SslContext ssl;
    /** The user's password (the file's first line), or null without a user. */
    private final String password;
    private final String endpoints;
    private final byte[] prefix;
    /** A watch response and when it came (the lag in seconds is counted from here). */
    private record Delivered(WatchResponse response, long nanos) {
    }

    /** What the watch delivered, in order: responses, or the error that ended it. */
    private final LinkedBlockingQueue<Object> delivered = new LinkedBlockingQueue<>();
    /** Transactions read from the watch and not yet given (past a poll's {@code upTo}). */
    private final java.util.ArrayDeque<SourceTxn> later = new java.util.ArrayDeque<>();
    private EtcdWatchStream watch;
    private volatile long head;
    private long position = -1;

    private EtcdFeed(Client client, MigrateOptions o, SslContext ssl, String password) {
        this.client = client;
        this.options = o;
        this.ssl = ssl;
        this.password = password;
        this.endpoints = String.join(",", o.endpoints());
        this.prefix = o.prefix().getBytes(StandardCharsets.UTF_8);
        this.ttls = EtcdLiveSource.at(client, 0, "", prefix);
    }

    /** The source etcd of {@code o} (endpoints, TLS, auth), connected; keys under {@code o}'s prefix. */
    static EtcdFeed open(MigrateOptions o) throws IOException {
        SslContext ssl = EtcdClients.sslContext(o);
        Client c = EtcdClients.build(o, ssl);
        try {
            EtcdClients.checkReachable(c, o);
            return new EtcdFeed(c, o, ssl, o.user() == null ? null : EtcdClients.firstLine(o.passwordFile()));
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
        WatchCreateRequest.Builder w = WatchCreateRequest.newBuilder().setStartRevision(revision + 1).setPrevKv(true).setProgressNotify(true);
        if (prefix.length == 0) {
            w.setKey(ByteString.copyFrom(new byte[] {0})).setRangeEnd(ByteString.copyFrom(new byte[] {0})); // "\0" to "\0": every key
        } else {
            w.setKey(ByteString.copyFrom(prefix)).setRangeEnd(ByteString.copyFrom(Comparison.TargetScan.prefixEnd(prefix)));
        }
        watch = EtcdWatchStream.start(options, ssl, password, w, r -> delivered.add(new Delivered(r, System.nanoTime())), delivered::add);
        if (revision < newest && compacted(revision + 1)) throw failure(watchEnd());
        return revision;
    }

    /**
     * Whether the source compacted its history past {@code revision} (a read at it is refused so). The watch says it
     * too, but only when etcd's next sync of its watchers comes (up to 100 ms later): asked here, the follow never
     * begins (nor says it did) from a revision it cannot read on from.
     */
    private boolean compacted(long revision) throws IOException {
        try {
            client.getKVClient().get(EtcdClients.probe(prefix), GetOption.builder().withCountOnly(true).withRevision(revision).build())
                    .get(60, TimeUnit.SECONDS);
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            if (c != null && c.getMessage() != null && c.getMessage().contains("required revision has been compacted")) return true;
            throw new IOException("the source etcd did not answer: " + (c != null ? c.getMessage() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("the source etcd did not answer within 60 s", e);
        }
    }

    /** What ended the watch (its cancel for the compaction, which names the revision), waited for; a plain account if it does not come. */
    private Throwable watchEnd() throws IOException {
        long until = System.nanoTime() + EtcdClients.REACH.toNanos();
        try {
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                Object o = delivered.poll(left, TimeUnit.NANOSECONDS);
                if (o instanceof Throwable t) return t;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new IOException(compactedPast("its history"));
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
            for (Event e : r.getEventsList()) {
                long rev = e.getKv().getModRevision();
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
    private static Change change(Event e) {
        KeyValue kv = e.getKv();
        boolean hasPrev = e.hasPrevKv() && !e.getPrevKv().getKey().isEmpty();
        byte[] before = hasPrev ? e.getPrevKv().getValue().toByteArray() : null;
        byte[] key = kv.getKey().toByteArray();
        if (e.getType() == Event.EventType.DELETE) return new Change(key, null, before, hasPrev, 0);
        // A put of version 1 made the key; a later one without prev_kv: etcd's history before it was compacted.
        boolean known = hasPrev || kv.getVersion() == 1;
        return new Change(key, kv.getValue().toByteArray(), before, known, kv.getLease());
    }

    private IOException failure(Throwable t) {
        if (t instanceof EtcdWatchStream.Compacted c) {
            return new IOException(compactedPast("its history to revision " + c.compactRevision + ","), t);
        }
        return t instanceof IOException io ? io : new IOException("the source etcd's watch failed: " + t.getMessage(), t);
    }

    /** The compaction's account: what the source compacted ({@code what}), past where the follow stood, and what to do. */
    private String compactedPast(String what) {
        return "the source etcd compacted " + what + " past revision " + position + " that this follow had to read on from: what changed in "
                + "between cannot be read; migrate again into an empty target (and raise the source's --auto-compaction-retention while it runs)";
    }

    @Override
    public long head() {
        return head;
    }

    @Override
    public long headNow() throws IOException {
        try {
            long h = client.getKVClient().get(EtcdClients.probe(prefix), GetOption.builder().withCountOnly(true).build())
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
        if (watch != null) watch.close();
        client.close();
    }
}
