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

    private final MigrateOptions o;
    private final PrintWriter progress;

    public Migrator(MigrateOptions o, PrintWriter progress) {
        this.o = o;
        this.progress = progress;
    }

    /** Migrates {@code source} into {@code target} (connected or connecting), which it closes when done. */
    public MigrationReport run(KeySource source, EarlyClient target) throws Exception {
        MigrationReport r = new MigrationReport();
        long start = System.nanoTime();
        if (o.dryRun()) {
            plan(source, r, batch -> r.batches++);
            r.nanos = System.nanoTime() - start;
            return r;
        }
        Client client = target.get();
        Timing.mark("etcd client");
        KV kv = client.getKVClient();
        Leases leases = new Leases(client, source.leaseIsTtl(), o.leaseTtl());
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
        Timing.mark("all committed");
        r.leasesGranted = leases.granted();
        target.close();
        r.nanos = System.nanoTime() - start;
        if (progress != null) progress.print("\r\033[K");
        return r;
    }

    interface BatchSink {
        void accept(List<SourceKey> batch);
    }

    /** Cuts the source into batches under both limits: --batch ops and the request size. */
    private void plan(KeySource source, MigrationReport r, BatchSink sink) {
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
                    r.tooLarge.add(new String(k.key(), StandardCharsets.UTF_8) + " (" + k.value().length + " bytes: above etcd's 1.5 MiB request limit)");
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
    private void commit(KV kv, Leases leases, List<SourceKey> batch, MigrationReport r) {
        List<SourceKey> todo = batch;
        long retried = 0;
        int attempts = 0;
        while (!todo.isEmpty()) {
            List<GetResponse> got;
            try {
                Cmp[] cmps = new Cmp[todo.size()];
                Op[] puts = new Op[todo.size()];
                for (int i = 0; i < todo.size(); i++) {
                    SourceKey k = todo.get(i);
                    ByteSequence key = wrap(k.key());
                    cmps[i] = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
                    long lease = leases.forSource(k.lease());
                    puts[i] = Op.put(key, wrap(k.value()), lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build());
                }
                // No Else branch: the request goes into etcd's raft log, so it carries only the puts;
                // when the compare fails, a read-only transaction (not logged) says which keys exist.
                TxnResponse resp = kv.txn().If(cmps).Then(puts).commit().get(60, TimeUnit.SECONDS);
                if (resp.isSucceeded()) {
                    r.add(todo.size(), 0, retried);
                    return;
                }
                Op[] gets = new Op[todo.size()];
                for (int i = 0; i < todo.size(); i++) gets[i] = Op.get(ByteSequence.from(todo.get(i).key()), GetOption.DEFAULT);
                got = kv.txn().Then(gets).commit().get(60, TimeUnit.SECONDS).getGetResponses();
            } catch (Exception e) {
                if (++attempts >= MAX_ATTEMPTS) {
                    r.errors.add("a batch of " + todo.size() + " key(s) from " + new String(todo.get(0).key(), StandardCharsets.UTF_8)
                            + " failed " + attempts + " times: " + rootMessage(e));
                    return;
                }
                retried++;
                sleep(Math.min(2000, 50L << Math.min(attempts, 6)));
                continue;
            }
            List<SourceKey> absent = new ArrayList<>();
            long present = 0;
            for (int i = 0; i < todo.size(); i++) {
                SourceKey k = todo.get(i);
                GetResponse g = got.get(i);
                if (g.getKvs().isEmpty()) {
                    absent.add(k);
                } else if (Arrays.equals(g.getKvs().get(0).getValue().getBytes(), k.value())) {
                    present++;
                } else {
                    r.conflict(new String(k.key(), StandardCharsets.UTF_8));
                }
            }
            r.add(0, present, 0);
            retried++;
            todo = absent;
        }
        r.add(0, 0, retried);
    }

    /**
     * The bytes as jetcd's ByteSequence without a copy ({@code ByteSequence.from(byte[])} copies): a
     * source key's arrays are never changed after it is read.
     */
    static ByteSequence wrap(byte[] bytes) {
        return ByteSequence.from(UnsafeByteOperations.unsafeWrap(bytes));
    }

    private static String rootMessage(Throwable e) {
        while (e.getCause() != null) e = e.getCause();
        return e.getClass().getSimpleName() + ": " + e.getMessage();
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
        private final Client client;
        private final boolean ttl;
        private final long walTtl;
        private final Map<Long, Long> granted = new HashMap<>();

        Leases(Client client, boolean ttl, long walTtl) {
            this.client = client;
            this.ttl = ttl;
            this.walTtl = walTtl;
        }

        synchronized long forSource(long lease) throws Exception {
            if (lease <= 0) return 0;
            Long id = granted.get(lease);
            if (id == null) {
                id = client.getLeaseClient().grant(ttl ? lease : walTtl).get(30, TimeUnit.SECONDS).getID();
                granted.put(lease, id);
            }
            return id;
        }

        synchronized long granted() {
            return granted.size();
        }
    }
}
