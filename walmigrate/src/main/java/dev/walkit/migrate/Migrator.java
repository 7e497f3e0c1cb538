package dev.walkit.migrate;

import dev.walkit.cli.Timing;
import com.google.protobuf.UnsafeByteOperations;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Moves a source's live keys into etcd without overwriting anything: each batch is one transaction
 * that puts its keys only if none of them exists ({@code CREATE(key) == 0} for every key). When the
 * compare fails, a read-only transaction of gets tells which keys exist: the same value is "already migrated",
 * another value is a conflict (never overwritten, listed); the absent rest is retried as a new CAS
 * batch. So a rerun after a kill completes the job and writes nothing twice, with no marker keys.
 */
public final class Migrator {
    private static final int MAX_ATTEMPTS = 30;
    /** With no answer from the target for this long, the migration stops (exit 5) rather than retry for ever. */
    static final long SILENCE_SECONDS = 60;

    private final MigrateOptions o;
    private final long silenceNanos;
    /** When the target last answered a request (System.nanoTime). */
    private final AtomicLong lastAnswer = new AtomicLong(System.nanoTime());
    /** Why the migration stopped sending batches, or null while it goes on. */
    private volatile String stopped;
    /** The last failure that was not a request timing out: what a stop for silence names. */
    private volatile String lastError;
    /** Keys not written for any reason (stopped, refused, failed too often). */
    private final AtomicLong unsentKeys = new AtomicLong();
    private final AtomicLong stoppedKeys = new AtomicLong();
    private final AtomicLong stoppedBatches = new AtomicLong();
    private final PrintWriter progress;

    public Migrator(MigrateOptions o, PrintWriter progress) {
        this(o, progress, SILENCE_SECONDS);
    }

    /** As above, stopping after {@code silenceSeconds} without an answer from the target (and waiting no longer for one request). */
    Migrator(MigrateOptions o, PrintWriter progress, long silenceSeconds) {
        this.o = o;
        this.progress = progress;
        this.silenceNanos = TimeUnit.SECONDS.toNanos(silenceSeconds);
    }

    /** Migrates {@code source} into {@code target} (connected or connecting), which it closes when done. */
    public MigrationReport run(KeySource source, EarlyClient target) throws Exception {
        MigrationReport.Tally r = new MigrationReport.Tally();
        long start = System.nanoTime();
        if (o.dryRun()) {
            plan(source, r, batch -> r.batches++);
            r.nanos = System.nanoTime() - start;
            return r.done();
        }
        Client client = target.get();
        lastAnswer.set(System.nanoTime()); // it has just answered the first read
        Timing.mark("etcd client");
        Leases leases = new Leases(client, source::ttlOf, o.leaseTtl());
        copy(source, client, leases, r);
        target.close();
        r.nanos = System.nanoTime() - start;
        return r.done();
    }

    /**
     * The copy: {@code source}'s keys into {@code client}'s etcd in CAS batches, leases mapped by {@code leases} (which a
     * follow goes on using); the counts into {@code r}. The client stays open.
     */
    void copy(KeySource source, Client client, Leases leases, MigrationReport.Tally r) throws InterruptedException {
        long start = System.nanoTime();
        KV kv = client.getKVClient();
        ExecutorService pool = Executors.newFixedThreadPool(o.concurrency(), runnable -> {
            Thread t = new Thread(runnable, "walmigrate-txn");
            t.setDaemon(true);
            return t;
        });
        Semaphore inFlight = new Semaphore(o.concurrency() * 2);
        AtomicLong done = new AtomicLong();
        try {
            plan(source, r, batch -> {
                r.batches++;
                inFlight.acquireUninterruptibly();
                pool.execute(() -> {
                    try {
                        commit(kv, leases, batch, r);
                    } finally {
                        done.addAndGet(batch.size());
                        inFlight.release();
                    }
                });
                showProgress(done.get(), start);
            });
            Timing.mark("all batches sent");
        } finally {
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.HOURS);
        }
        r.unsent = unsentKeys.get();
        if (stopped != null) {
            r.errors.add("stopped: " + stopped + "; " + stoppedKeys.get() + " key(s) in " + stoppedBatches.get()
                    + " batch(es) not written: run the same command again when etcd answers (keys already written are skipped)");
        }
        Timing.mark("all committed");
        r.leasesGranted = leases.granted();
        r.leasesReused = leases.reused();
        if (progress != null) progress.print("\r\033[K");
    }

    interface BatchSink {
        void accept(List<SourceKey> batch);
    }

    /** Cuts the source into batches under both limits: --batch ops and the request size. */
    private void plan(KeySource source, MigrationReport.Tally r, BatchSink sink) {
        byte[] prefix = o.prefix().getBytes(StandardCharsets.UTF_8);
        List<SourceKey> batch = new ArrayList<>();
        long bytes = 0;
        while (source.hasNext()) {
            SourceKey k = source.next();
            if (!startsWith(k.key(), prefix)) continue;
            r.sourceKeys++;
            long size = (long) k.key().length + k.value().length + MigrateOptions.PER_OP_OVERHEAD * 2L;
            if (size > MigrateOptions.MAX_REQUEST_BYTES) {
                if (r.tooLarge.size() < MigrationReport.MAX_LISTED) {
                    r.tooLarge.add(dev.walkit.cli.KeyText.quote(k.key()) + " (" + k.value().length + " bytes: above etcd's 1.5 MiB request limit)");
                }
                continue;
            }
            if (!batch.isEmpty() && (batch.size() >= o.batch() || bytes + size > MigrateOptions.MAX_REQUEST_BYTES)) {
                sink.accept(batch);
                batch = new ArrayList<>();
                bytes = 0;
            }
            batch.add(k);
            bytes += size;
        }
        if (!batch.isEmpty()) sink.accept(batch);
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** One CAS batch to completion: retried on transport failures, narrowed to the absent keys on a failed compare. */
    private void commit(KV kv, Leases leases, List<SourceKey> batch, MigrationReport.Tally r) {
        List<SourceKey> todo = batch;
        long retried = 0;
        int attempts = 0;
        long silenceSeconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(silenceNanos));
        while (!todo.isEmpty()) {
            // Each request waits only for what is left of the silence allowed since the last answer: the job stops
            // within the documented time, not that time after a request that began just before it ran out.
            long waitMs = Math.max(200, TimeUnit.NANOSECONDS.toMillis(silenceNanos - (System.nanoTime() - lastAnswer.get())));
            if (stopped != null) {
                unsentKeys.addAndGet(todo.size());
                stoppedKeys.addAndGet(todo.size());
                stoppedBatches.incrementAndGet();
                break;
            }
            List<GetResponse> got;
            try {
                if (leases.unknown(todo)) {
                    // A lease this run has not mapped yet: first see which keys an earlier run left, and reuse the lease
                    // they carry, so that a rerun grants only what is missing (and a run that writes nothing, none).
                    List<SourceKey> absent = settle(readBack(kv, todo, waitMs), todo, leases, r);
                    lastAnswer.set(System.nanoTime());
                    todo = absent;
                    if (todo.isEmpty()) break;
                }
                Cmp[] cmps = new Cmp[todo.size()];
                Op[] puts = new Op[todo.size()];
                for (int i = 0; i < todo.size(); i++) {
                    SourceKey k = todo.get(i);
                    ByteSequence key = wrap(k.key());
                    cmps[i] = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
                    long lease = leases.forSource(k.lease(), Math.max(1, TimeUnit.MILLISECONDS.toSeconds(waitMs)));
                    puts[i] = Op.put(key, wrap(k.value()), lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build());
                }
                // No Else branch: the request goes into etcd's raft log, so it carries only the puts;
                // when the compare fails, a read-only transaction (not logged) says which keys exist.
                TxnResponse resp = kv.txn().If(cmps).Then(puts).commit().get(waitMs, TimeUnit.MILLISECONDS);
                lastAnswer.set(System.nanoTime());
                if (resp.isSucceeded()) {
                    r.add(todo.size(), 0, retried);
                    return;
                }
                got = readBack(kv, todo, waitMs);
                lastAnswer.set(System.nanoTime());
            } catch (Exception e) {
                if (refused(e)) {
                    // etcd answered no, and would again: retrying is no use.
                    unsentKeys.addAndGet(todo.size());
                    String why = rootMessage(e);
                    r.errors.add("a batch of " + todo.size() + " key(s) from " + dev.walkit.cli.KeyText.quote(todo.get(0).key())
                            + " was refused: " + why + (why.contains("too many operations") ? " (--batch is above the target's --max-txn-ops, 128 by default)" : ""));
                    return;
                }
                if (!(rootCause(e) instanceof java.util.concurrent.TimeoutException)) lastError = rootMessage(e);
                if (System.nanoTime() - lastAnswer.get() >= silenceNanos) {
                    // The target has been silent too long: this batch and every later one are left unwritten.
                    if (stopped == null) {
                        String last = lastError;
                        stopped = "etcd has not answered for " + silenceSeconds + " s (" + (last == null
                                ? "every request in that time went unanswered" : "the last error: " + last) + ")";
                    }
                    continue;
                }
                if (++attempts >= MAX_ATTEMPTS) {
                    unsentKeys.addAndGet(todo.size());
                    r.errors.add("a batch of " + todo.size() + " key(s) from " + dev.walkit.cli.KeyText.quote(todo.get(0).key())
                            + " failed " + attempts + " times: " + rootMessage(e));
                    return;
                }
                retried++;
                sleep(Math.min(2000, 50L << Math.min(attempts, 6)));
                continue;
            }
            retried++;
            todo = settle(got, todo, leases, r);
        }
        r.add(0, 0, retried);
    }

    /**
     * What the target holds of {@code todo} ({@code got}, in order): a key present with the source's value is
     * counted present (and the lease it carries is learnt for its source lease), one with another value is a
     * conflict, left as it is; returns the absent keys, still to write.
     */
    private static List<SourceKey> settle(List<GetResponse> got, List<SourceKey> todo, Leases leases, MigrationReport.Tally r) {
        List<SourceKey> absent = new ArrayList<>();
        long present = 0;
        for (int i = 0; i < todo.size(); i++) {
            SourceKey k = todo.get(i);
            GetResponse g = got.get(i);
            if (g.getKvs().isEmpty()) {
                absent.add(k);
            } else if (Arrays.equals(g.getKvs().get(0).getValue().getBytes(), k.value())) {
                present++;
                if (k.lease() > 0 && g.getKvs().get(0).getLease() != 0) leases.reuse(k.lease(), g.getKvs().get(0).getLease());
            } else {
                r.conflict(k.key());
            }
        }
        r.add(0, present, 0);
        return absent;
    }

    /**
     * The target's present state of {@code keys} (read-only transactions, not logged), a transaction per group of
     * keys whose source values add up to at most {@link Comparison#PAGE_BYTES}: one answer for a batch of keys
     * holding 1.4 MiB each would exceed what gRPC takes.
     */
    static List<GetResponse> readBack(KV kv, List<SourceKey> keys, long waitMs) throws Exception {
        List<GetResponse> out = new ArrayList<>(keys.size());
        for (int a = 0; a < keys.size(); ) {
            long bytes = 0;
            int b = a;
            while (b < keys.size() && (b == a || bytes + keys.get(b).value().length <= Comparison.PAGE_BYTES)) bytes += keys.get(b++).value().length;
            out.addAll(readGroup(kv, keys.subList(a, b), waitMs));
            a = b;
        }
        return out;
    }

    /** One read-only transaction of {@code keys}; halved when the target's answer (its values, not the source's) exceeds what gRPC takes. */
    private static List<GetResponse> readGroup(KV kv, List<SourceKey> keys, long waitMs) throws Exception {
        Op[] gets = new Op[keys.size()];
        for (int i = 0; i < keys.size(); i++) gets[i] = Op.get(ByteSequence.from(keys.get(i).key()), GetOption.DEFAULT);
        try {
            return kv.txn().Then(gets).commit().get(waitMs, TimeUnit.MILLISECONDS).getGetResponses();
        } catch (java.util.concurrent.ExecutionException e) {
            if (keys.size() == 1 || !String.valueOf(e.getMessage()).contains("RESOURCE_EXHAUSTED")) throw e;
            List<GetResponse> out = new ArrayList<>(readGroup(kv, keys.subList(0, keys.size() / 2), waitMs));
            out.addAll(readGroup(kv, keys.subList(keys.size() / 2, keys.size()), waitMs));
            return out;
        }
    }

    /**
     * The bytes as jetcd's ByteSequence without a copy ({@code ByteSequence.from(byte[])} copies): a
     * source key's arrays are never changed after it is read.
     */
    static ByteSequence wrap(byte[] bytes) {
        return ByteSequence.from(UnsafeByteOperations.unsafeWrap(bytes));
    }

    /** Whether etcd refused the request for a reason a retry would meet again (a bad request, no permission). */
    static boolean refused(Throwable e) {
        return switch (Status.fromThrowable(e).getCode()) {
            case INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED -> true;
            default -> false;
        };
    }

    private static String rootMessage(Throwable e) {
        Throwable r = rootCause(e);
        return r.getMessage() == null ? r.getClass().getSimpleName() : r.getClass().getSimpleName() + ": " + r.getMessage();
    }

    private static Throwable rootCause(Throwable e) {
        while (e.getCause() != null) e = e.getCause();
        return e;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long lastShown;

    private void showProgress(long done, long start) {
        if (progress == null) return;
        long now = System.nanoTime();
        if (now - lastShown < 500_000_000L) return;
        lastShown = now;
        double secs = (now - start) / 1e9;
        progress.printf("\rwalmigrate: %,d keys, %,.0f keys/s", done, done / Math.max(secs, 1e-3));
        progress.flush();
    }

    /** Leases granted on the target: one per distinct kine TTL, or one per old WAL lease ID. */
    static final class Leases {
        /** The TTL to grant for a source lease ({@link KeySource#ttlOf}). */
        @FunctionalInterface
        interface TtlOf {
            long ttlOf(long lease, long fallback);
        }

        private final Client client;
        private final TtlOf source;
        private final long walTtl;
        /** Source lease → the target's lease for it (granted by this run, or reused from an earlier one). */
        private final Map<Long, Long> granted = new HashMap<>();
        private long grants;
        private long reused;

        Leases(Client client, TtlOf source, long walTtl) {
            this.client = client;
            this.source = source;
            this.walTtl = walTtl;
        }

        synchronized long forSource(long lease, long waitSeconds) throws Exception {
            if (lease <= 0) return 0;
            Long id = granted.get(lease);
            if (id == null) {
                id = client.getLeaseClient().grant(source.ttlOf(lease, walTtl)).get(waitSeconds, TimeUnit.SECONDS).getID();
                granted.put(lease, id);
                grants++;
            }
            return id;
        }

        /** Whether a key of {@code batch} has a source lease this run has neither granted nor found on the target. */
        synchronized boolean unknown(List<SourceKey> batch) {
            for (SourceKey k : batch) {
                if (k.lease() > 0 && !granted.containsKey(k.lease())) return true;
            }
            return false;
        }

        /** An earlier run's lease, found on a key it wrote (alive, since the key is): used for its source lease from now on. */
        synchronized void reuse(long sourceLease, long targetLease) {
            if (granted.putIfAbsent(sourceLease, targetLease) == null) reused++;
        }

        /** The target's lease for {@code sourceLease}, or 0 when none is mapped yet. */
        synchronized long mapped(long sourceLease) {
            Long id = granted.get(sourceLease);
            return id == null ? 0 : id;
        }

        /** Every source lease → target lease known now. */
        synchronized Map<Long, Long> all() {
            return Map.copyOf(granted);
        }

        /** When each target lease was last kept alive (System.nanoTime), by {@link #keepAlive}. */
        private final Map<Long, Long> keptAt = new HashMap<>();

        /**
         * Keeps alive each mapped target lease whose third of its TTL has passed since it was granted or last kept
         * alive (a follow's source still holds its keys: call it every second or so); a lease the target no longer
         * has is unmapped, so that the next change that needs it grants another.
         */
        void keepAlive(long waitSeconds) {
            long now = System.nanoTime();
            for (Map.Entry<Long, Long> m : all().entrySet()) {
                long ttl = Math.max(1, source.ttlOf(m.getKey(), walTtl));
                Long last;
                synchronized (this) {
                    last = keptAt.putIfAbsent(m.getValue(), now);
                }
                if (last != null && now - last < TimeUnit.SECONDS.toNanos(ttl) / 3) continue;
                try {
                    client.getLeaseClient().keepAliveOnce(m.getValue()).get(waitSeconds, TimeUnit.SECONDS);
                    synchronized (this) {
                        keptAt.put(m.getValue(), now);
                    }
                } catch (Exception e) {
                    if (Status.fromThrowable(e).getCode() == Status.Code.NOT_FOUND || String.valueOf(e.getMessage()).contains("not found")) {
                        synchronized (this) {
                            granted.remove(m.getKey(), m.getValue());
                        }
                    }
                    // else the target did not answer: the next round tries again
                }
            }
        }

        /** Leases this run granted. */
        synchronized long granted() {
            return grants;
        }

        /** Leases an earlier run granted that this run uses again. */
        synchronized long reused() {
            return reused;
        }
    }
}
