package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code walmigrate … --follow}: the copy at one revision, then the source's transactions after it, each applied to
 * the target as one transaction, in the source's order, until the cut-over; then the target verified against the
 * source at the cut-over revision.
 *
 * <p>The rules are the copy's: nothing the source did not write is overwritten. A change applies only where the
 * target's key holds what the source's held just before (absent for a create, the previous value otherwise); a key
 * that does not is a conflict, left as it is and listed. Leases are mapped as the copy maps them (and kept alive while
 * the source holds them). Every transaction also moves the {@link FollowMarker}, compared on its mod_revision, so a run
 * killed at any moment resumes where the target says it stopped, and nothing is applied twice.
 */
final class Follow {
    /** A poll of the source waits this long for a transaction. */
    private static final long POLL_MILLIS = 100;
    /** Previous values larger than this are compared by the key's existence only (the request would double in size). */
    private static final int COMPARE_VALUE_BYTES = 64 << 10;
    private static final int MAX_ATTEMPTS = 30;

    /**
     * When the follow ends: at a revision, when a file appears, on a signal; how many follow transactions it keeps in
     * flight; how many source transactions one target transaction may take when the follow is behind.
     */
    record Until(long revision, Path cutoverFile, String markerKey, int pipeline, int coalesce) {
        Until(long revision, Path cutoverFile, String markerKey) {
            this(revision, cutoverFile, markerKey, DEFAULT_PIPELINE, DEFAULT_COALESCE);
        }
    }

    /** Follow transactions in flight at once unless --pipeline says otherwise. */
    static final int DEFAULT_PIPELINE = 64;
    /** Source transactions one target transaction may take (when already read, behind) unless --coalesce says otherwise. */
    static final int DEFAULT_COALESCE = 64;

    private final MigrateOptions o;
    /** Keys other shards take (--route), left out of this one's copy, follow and verify; null: none. */
    private final Routes except;
    /** The migration's --prefix: keys under it that this shard does not take went to another shard. */
    private final byte[] scope;
    /** Source transactions this shard applied part of, the rest of their keys another shard's. */
    private long splits;
    private final Until until;
    private final PrintWriter progress;
    /** Where the one line that says the follow has begun goes (stderr, terminal or not). */
    private final PrintWriter notice;
    private final BooleanSupplier signalled;
    private final byte[] markerKey;
    private KV kv;
    private Migrator.Leases leases;
    /** Source leases whose mapping the target's marker holds. */
    private final Set<Long> recorded = new HashSet<>();
    /** The marker's mod_revision as this run's last transaction left it. */
    private long markerRevision;
    private final MigrationReport.Tally tally = new MigrationReport.Tally();
    private long transactions;
    /** Target transactions the follow's changes went in (fewer than {@link #transactions} when coalesced). */
    private long targetTransactions;
    private long changes;
    private long conflicts;
    private final List<byte[]> conflictKeys = new ArrayList<>();
    /** Deletes whose key the target no longer held (a target lease expired while the follow was down). */
    private long absentAlready;
    private long[] lagRevisions = new long[1024];
    private long[] lagNanos = new long[1024];
    private int lags;
    /**
     * Follow transactions sent and not yet answered, in source order (at most {@link Until#pipeline}); no two write the
     * same key, so the order the target applies them in (etcd applies requests in flight at once in any order) changes
     * nothing a key goes through.
     */
    private final java.util.ArrayDeque<InFlight> inFlight = new java.util.ArrayDeque<>();
    /**
     * The keys of the transactions sent past the marker's revision (answered or not), and those transactions' revisions
     * with their keys: at most one transaction past the marker writes a key, so that what the target holds says of each
     * whether it was applied (its keys as it left them) or not (as it found them) when a run is killed.
     */
    private final Map<java.nio.ByteBuffer, Integer> keysPastMarker = new java.util.HashMap<>();
    private final java.util.ArrayDeque<InFlight> pastMarker = new java.util.ArrayDeque<>();
    /** The most transactions that were in flight at once. */
    private int mostInFlight;
    /** Transactions that failed in the pipeline (a conflict, a lost answer) and were settled alone from what the target holds. */
    private long pipelineRestarts;
    /** Every source transaction up to this one is applied (answered in order); the marker moves up to it. */
    private FollowMarker confirmed;
    /** What the marker says in the target (as this run last moved it). */
    private FollowMarker markerAt;
    /** The marker's move in flight (one at a time), and where it moves to; null: none. */
    private java.util.concurrent.CompletableFuture<TxnResponse> markerMove;
    private FollowMarker markerMovingTo;
    private List<Long> markerMoveLeases = List.of();

    Follow(MigrateOptions o, Until until, PrintWriter notice, PrintWriter progress, BooleanSupplier signalled) {
        this(o, until, notice, progress, signalled, null, o.prefix());
    }

    /**
     * {@code except}: the routes whose keys other shards take (this one is --endpoints' shard: the rest); null: none.
     * {@code scope}: the migration's --prefix, of which this shard takes a part (a source transaction that writes keys of
     * the scope outside this shard's is counted as split).
     */
    Follow(MigrateOptions o, Until until, PrintWriter notice, PrintWriter progress, BooleanSupplier signalled, Routes except, String scope) {
        this.except = except;
        this.scope = (scope == null ? "" : scope).getBytes(StandardCharsets.UTF_8);
        this.o = o;
        this.until = until;
        this.notice = notice;
        this.progress = progress;
        this.signalled = signalled;
        this.markerKey = until.markerKey().getBytes(StandardCharsets.UTF_8);
    }

    /** What the run did: the copy's counts and the follow's. */
    record Result(MigrationReport copy, FollowReport follow, String stopped) {
    }

    Result run(ChangeFeed feed, EarlyClient target) throws Exception {
        long start = System.nanoTime();
        Client client = target.get();
        kv = client.getKVClient();
        leases = new Migrator.Leases(client, feed::ttlOf, o.leaseTtl());
        ScheduledExecutorService keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "walmigrate-keepalive");
            t.setDaemon(true);
            return t;
        });
        try {
            GetResponse m = kv.get(ByteSequence.from(markerKey)).get(60, TimeUnit.SECONDS);
            FollowMarker marker = m.getKvs().isEmpty() ? null : FollowMarker.decode(m.getKvs().get(0).getValue().getBytes());
            if (!m.getKvs().isEmpty() && marker == null) {
                throw new IllegalStateException("the target's key " + until.markerKey() + " is not a walmigrate follow marker: name another with --marker");
            }
            if (marker != null && !marker.source().equals(feed.describe())) {
                throw new IllegalStateException("the target holds the marker of a migration from " + marker.source() + " (" + until.markerKey()
                        + "), not from " + feed.describe() + ": finish that one, or name another marker with --marker");
            }
            String resumed = null;
            long revision;
            boolean copy;
            if (marker == null) {
                revision = feed.position(ChangeFeed.LATEST, notAfter());
                TxnResponse r = kv.txn().If(new Cmp(ByteSequence.from(markerKey), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(ByteSequence.from(markerKey), ByteSequence.from(new FollowMarker(feed.describe(), FollowMarker.Phase.COPY, revision).encode()), PutOption.DEFAULT))
                        .commit().get(60, TimeUnit.SECONDS);
                if (!r.isSucceeded()) throw new IllegalStateException("another walmigrate started a follow into this target just now (" + until.markerKey() + ")");
                markerRevision = r.getHeader().getRevision();
                copy = true;
            } else {
                markerRevision = m.getKvs().get(0).getModRevision();
                revision = feed.position(marker.revision(), Long.MAX_VALUE);
                copy = marker.phase() == FollowMarker.Phase.COPY;
                resumed = copy ? "the copy at revision " + revision : "after revision " + revision;
                learnLeases(client);
            }
            scheduleKeepAlive(keepAlive);
            if (copy) {
                try (KeySource state = feed.state(revision)) {
                    new Migrator(o, progress).copy(except == null ? state : except.rest(state), client, leases, tally);
                }
                if (!tally.errors.isEmpty() || tally.unsent > 0) {
                    tally.nanos = System.nanoTime() - start;
                    return new Result(tally.done(), null, "the copy did not finish; run the same command again: it resumes the copy at revision " + revision);
                }
                applyMarker(new FollowMarker(feed.describe(), FollowMarker.Phase.FOLLOW, revision), List.of());
            }
            tally.nanos = System.nanoTime() - start;
            MigrationReport copied = tally.done();
            confirmed = markerAt = new FollowMarker(feed.describe(), FollowMarker.Phase.FOLLOW, revision);
            Group group = new Group();
            Cut c = follow(feed, revision, new Applier() {
                @Override
                public void apply(SourceTxn t, List<Change> todo) throws Exception {
                    if (!group.takes(todo)) sendGroup(feed, group);
                    group.add(t, todo);
                    if (group.sources.size() >= until.coalesce()) sendGroup(feed, group);
                }

                @Override
                public void drain() throws Exception {
                    sendGroup(feed, group);
                    while (!inFlight.isEmpty()) answerOldest(feed);
                    settleMarker(true);
                }

                @Override
                public void answered() throws Exception {
                    sendGroup(feed, group);
                    while (!inFlight.isEmpty() && inFlight.peekFirst().answer().isDone()) answerOldest(feed);
                    settleMarker(false);
                }
            });
            Comparison verify;
            try (KeySource state = feed.state(c.revision())) {
                verify = Comparison.run(except == null ? state : except.rest(state), o, key -> FollowMarker.owns(until.markerKey(), key));
            }
            if (verify.equal()) removeMarker();
            return new Result(copied, report(resumed, revision, c, verify), null);
        } finally {
            keepAlive.shutdownNow();
            target.close();
        }
    }

    /**
     * {@code --out-wal DIR --follow} or {@code --out-kine DIR --follow}: the copy staged in a temp file in DIR, then each
     * source transaction appended as one of the store's (or as kine's rows); at the cut-over, the output is read back and
     * checked against the source at the cut-over revision and, when equal, published by one durable rename. Nothing is
     * in DIR before that: a run killed starts again from the copy.
     */
    Result runOffline(ChangeFeed feed, Stager stager, java.time.Instant now) throws Exception {
        long start = System.nanoTime();
        byte[] prefix = o.prefix().getBytes(StandardCharsets.UTF_8);
        long revision = feed.position(ChangeFeed.LATEST, notAfter());
        StagedOutput staged;
        try (KeySource state = KeySource.under(feed.state(revision), prefix)) {
            staged = stager.stage(state);
        }
        try (staged) {
            tally.sourceKeys = staged.keys();
            tally.written = staged.keys();
            tally.nanos = System.nanoTime() - start;
            MigrationReport copied = tally.done();
            Cut c = follow(feed, revision, (t, todo) -> {
                staged.append(t.revision(), todo, feed::ttlOf);
                targetTransactions++;
                applied(feed, t);
            });
            Comparison verify;
            try (KeySource want = KeySource.under(feed.state(c.revision()), prefix); KeySource got = staged.readBack()) {
                verify = Comparison.between(want, got, lease -> staged.storedLease(lease, feed::ttlOf));
            }
            if (verify.equal()) staged.publish(now);
            return new Result(copied, report(null, revision, c, verify), verify.equal() ? null
                    : "the output written does not hold what the source holds at revision " + c.revision() + ": nothing was published");
        }
    }

    /** Stages an offline output of the copy. */
    @FunctionalInterface
    interface Stager {
        StagedOutput stage(KeySource copy) throws java.io.IOException;
    }

    /** The copy's revision at most: --until-revision when the source is already past it (the copy is then the state there). */
    private long notAfter() {
        return until.revision() > 0 ? until.revision() : Long.MAX_VALUE;
    }

    /** How a follow ended: why the cut-over began, when, and the revision the target holds. */
    private record Cut(String why, long startNanos, long revision) {
    }

    /** Applies one source transaction (its changes under the prefix) to the target. */
    private interface Applier {
        void apply(SourceTxn t, List<Change> changes) throws Exception;

        /** Waits until every transaction given is applied (a pipeline's in flight answered). */
        default void drain() throws Exception {
        }

        /** Takes the answers that have come (the lag is counted when a transaction is known applied), without waiting. */
        default void answered() throws Exception {
        }
    }

    /**
     * The follow: {@code feed}'s transactions after {@code from}, each applied by {@code a}, until the cut-over (the
     * --until-revision applied, the --cutover file, a signal); then, the source's writers stopped, what is left up to
     * its newest revision.
     */
    private Cut follow(ChangeFeed feed, long from, Applier a) throws Exception {
        long applied = from;
        long limit = until.revision() > 0 ? until.revision() : Long.MAX_VALUE;
        boolean announced = false;
        String why = null;
        while (why == null) {
            if (applied >= limit) {
                why = "--until-revision " + limit + " reached";
            } else if (until.cutoverFile() != null && Files.exists(until.cutoverFile())) {
                why = "the cut-over file " + until.cutoverFile() + " appeared";
            } else if (signalled.getAsBoolean()) {
                why = "a signal";
            }
            if (why != null) break;
            List<SourceTxn> polled = feed.poll(POLL_MILLIS, limit);
            if (!announced) { // the source answered from where the follow stands: it is on
                announced = true;
                announce(feed, from);
            }
            for (SourceTxn t : polled) applied = apply(feed, t, applied, a);
            a.answered();
            showProgress(applied, feed.head());
        }
        long cutStart = System.nanoTime();
        long cut = Math.min(limit, feed.headNow());
        for (int quiet = 0; quiet < 2; ) {
            List<SourceTxn> rest = feed.poll(POLL_MILLIS, limit);
            for (SourceTxn t : rest) applied = apply(feed, t, applied, a);
            long h = Math.min(limit, feed.headNow());
            if (rest.isEmpty() && h == cut) quiet++;
            else quiet = 0;
            cut = h;
        }
        a.drain();
        if (progress != null) progress.print("\r\033[K");
        return new Cut(why, cutStart, Math.max(cut, applied));
    }

    private FollowReport report(String resumed, long copyRevision, Cut c, Comparison verify) {
        double cutSeconds = (System.nanoTime() - c.startNanos()) / 1e9;
        long[] r = Arrays.copyOf(lagRevisions, lags);
        long[] n = Arrays.copyOf(lagNanos, lags);
        Arrays.sort(r);
        Arrays.sort(n);
        return new FollowReport(resumed, copyRevision, transactions, changes, conflicts, List.copyOf(conflictKeys), absentAlready, pct(r, 50), pct(r, 99),
                pct(n, 50) / 1e6, pct(n, 99) / 1e6, c.revision(), c.why(), cutSeconds, verify, until.pipeline(), mostInFlight, pipelineRestarts, splits,
                until.coalesce(), targetTransactions);
    }

    /** The changes of {@code t} under the prefix. */
    private List<Change> inPrefix(SourceTxn t) {
        byte[] prefix = o.prefix().getBytes(StandardCharsets.UTF_8);
        List<Change> todo = new ArrayList<>();
        for (Change c : t.changes()) if (Migrator.startsWith(c.key(), prefix) && (except == null || !except.routed(c.key()))) todo.add(c);
        return todo;
    }

    /** The mapping of source leases to target leases an earlier run of this follow kept in the marker. */
    private void learnLeases(Client client) throws Exception {
        byte[] p = FollowMarker.leasePrefix(until.markerKey());
        GetResponse r = client.getKVClient().get(ByteSequence.from(p), GetOption.builder().isPrefix(true).build()).get(60, TimeUnit.SECONDS);
        for (KeyValue kv : r.getKvs()) {
            long source = FollowMarker.sourceLease(until.markerKey(), kv.getKey().getBytes());
            if (source < 0) continue;
            try {
                leases.reuse(source, Long.parseLong(kv.getValue().toString(StandardCharsets.UTF_8)));
                recorded.add(source);
            } catch (NumberFormatException e) {
                // not ours
            }
        }
    }

    /** Every half second, each lease whose third of its TTL has passed is kept alive (leases granted later included). */
    private void scheduleKeepAlive(ScheduledExecutorService s) {
        s.scheduleWithFixedDelay(() -> leases.keepAlive(5), 500, 500, TimeUnit.MILLISECONDS);
    }

    private static long pct(long[] sorted, int p) {
        if (sorted.length == 0) return 0;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * p / 100.0) - 1)];
    }

    /** Applies {@code t} (if past {@code applied}) by {@code a}; the revision applied through (sent, when pipelined). */
    private long apply(ChangeFeed feed, SourceTxn t, long applied, Applier a) throws Exception {
        if (t.revision() <= applied) return applied;
        List<Change> todo = inPrefix(t);
        if (!todo.isEmpty()) {
            int inScope = 0;
            for (Change c : t.changes()) if (Migrator.startsWith(c.key(), scope)) inScope++;
            if (inScope > todo.size()) splits++;
        }
        a.apply(t, todo);
        transactions++;
        changes += todo.size();
        return t.revision();
    }

    /** The lag a transaction kept: how far the source was ahead, and how long from its read to the target holding it. */
    private void applied(ChangeFeed feed, SourceTxn t) {
        applied(feed, t, System.nanoTime());
    }

    /** As above, known applied at {@code nanos} (a pipelined transaction's answer came then, before it was taken). */
    private void applied(ChangeFeed feed, SourceTxn t, long nanos) {
        if (lags == lagRevisions.length) {
            lagRevisions = Arrays.copyOf(lagRevisions, lags * 2);
            lagNanos = Arrays.copyOf(lagNanos, lags * 2);
        }
        lagRevisions[lags] = Math.max(0, feed.head() - t.revision());
        lagNanos[lags++] = nanos - t.seenNanos();
    }

    /** A pipelined transaction's answer, and when it came (its source transactions' lag ends there, not when it is taken). */
    private record Answered(TxnResponse response, long nanos) {
    }

    /**
     * A follow transaction in flight: the source's (one, or consecutive ones coalesced), the marker that says they are
     * applied, their changes and keys, its answer.
     */
    private record InFlight(List<SourceTxn> sources, FollowMarker next, List<List<Change>> parts, List<java.nio.ByteBuffer> keys, List<Long> newLeases,
                            java.util.concurrent.CompletableFuture<Answered> answer) {
        SourceTxn last() {
            return sources.get(sources.size() - 1);
        }
    }

    /**
     * Consecutive source transactions already read, to go as one target transaction (--coalesce): none writes a key
     * another of them writes (etcd refuses a key twice in one transaction, and each change's compare is of the value
     * before its own source transaction), their operations within --batch and their bytes within a request. A source
     * transaction is never split by it: the target applies all of the group or none, in the source's order.
     */
    private final class Group {
        final List<SourceTxn> sources = new ArrayList<>();
        /** Each source transaction's changes. */
        final List<List<Change>> parts = new ArrayList<>();
        final Set<java.nio.ByteBuffer> keys = new HashSet<>();
        int changes;
        long bytes;

        /** Whether {@code more} can join (an empty group takes anything). */
        boolean takes(List<Change> more) {
            if (sources.isEmpty()) return true;
            if (changes + more.size() > o.batch() / 2) return false; // room for the lease mappings beside them
            long b = bytes;
            for (Change c : more) {
                if (keys.contains(java.nio.ByteBuffer.wrap(c.key()))) return false;
                b += c.bytes();
            }
            return b <= MigrateOptions.MAX_REQUEST_BYTES / 2;
        }

        void add(SourceTxn t, List<Change> more) {
            sources.add(t);
            parts.add(more);
            changes += more.size();
            for (Change c : more) {
                keys.add(java.nio.ByteBuffer.wrap(c.key()));
                bytes += c.bytes();
            }
        }

        void clear() {
            sources.clear();
            parts.clear();
            keys.clear();
            changes = 0;
            bytes = 0;
        }
    }

    /** Sends the group (if any) as one follow transaction, and empties it. */
    private void sendGroup(ChangeFeed feed, Group g) throws Exception {
        if (g.sources.isEmpty()) return;
        List<SourceTxn> sources = List.copyOf(g.sources);
        List<List<Change>> parts = List.copyOf(g.parts);
        g.clear();
        send(feed, sources, new FollowMarker(feed.describe(), FollowMarker.Phase.FOLLOW, sources.get(sources.size() - 1).revision()), parts);
    }

    /**
     * Sends {@code parts} (the changes of the source transactions {@code sources}, one or a group; {@code next}, the marker that says they are applied) with up to
     * {@link Until#pipeline} transactions in flight: each compares its keys' previous values, as one at a time does, and
     * none writes a key another transaction past the marker wrote (when it would, those are answered and the marker moved
     * past them first). So the order the target applies them in changes nothing a key goes through, and after a kill each
     * key's value says whether the one transaction past the marker that wrote it was applied. The marker moves behind the
     * answered ones, one move in flight at a time ({@link #settleMarker}). One in flight: every transaction through
     * {@link #applyMarker}, which moves the marker itself.
     */
    private void send(ChangeFeed feed, List<SourceTxn> sources, FollowMarker next, List<List<Change>> parts) throws Exception {
        targetTransactions++;
        List<Change> todo = new ArrayList<>();
        for (List<Change> part : parts) todo.addAll(part);
        if (until.pipeline() <= 1) {
            applyMarker(next, todo);
            for (SourceTxn t : sources) applied(feed, t);
            return;
        }
        List<java.nio.ByteBuffer> keys = new ArrayList<>(todo.size());
        boolean overlaps = false;
        for (Change c : todo) {
            java.nio.ByteBuffer k = java.nio.ByteBuffer.wrap(c.key());
            keys.add(k);
            overlaps |= keysPastMarker.containsKey(k);
        }
        // The answers that have come, taken as they come: the marker keeps up, and the lag is counted when it is true.
        while (!inFlight.isEmpty() && inFlight.peekFirst().answer().isDone()) answerOldest(feed);
        if (overlaps) {
            while (!inFlight.isEmpty()) answerOldest(feed);
            settleMarker(true);
        }
        while (inFlight.size() >= until.pipeline()) answerOldest(feed);
        List<Cmp> cmps = new ArrayList<>();
        List<Op> ops = new ArrayList<>();
        List<Long> newLeases = new ArrayList<>();
        changesAndLeases(todo, cmps, ops, newLeases);
        java.util.concurrent.CompletableFuture<Answered> answer;
        try {
            answer = kv.txn().If(cmps.toArray(Cmp[]::new)).Then(ops.toArray(Op[]::new)).commit().thenApply(r -> new Answered(r, System.nanoTime()));
        } catch (RuntimeException e) {
            answer = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        InFlight f = new InFlight(sources, next, parts, keys, newLeases, answer);
        inFlight.add(f);
        pastMarker.add(f);
        for (java.nio.ByteBuffer k : keys) keysPastMarker.merge(k, 1, Integer::sum);
        mostInFlight = Math.max(mostInFlight, inFlight.size());
        settleMarker(false);
    }

    /** A pipelined transaction's compares and operations: its changes, and the lease mappings they need. */
    private void changesAndLeases(List<Change> todo, List<Cmp> cmps, List<Op> ops, List<Long> newLeases) throws Exception {
        changes(todo, cmps, ops, newLeases);
        for (long l : newLeases) {
            ops.add(Op.put(ByteSequence.from(FollowMarker.leaseKey(until.markerKey(), l)),
                    ByteSequence.from(Long.toString(leases.mapped(l)), StandardCharsets.UTF_8), PutOption.DEFAULT));
        }
    }

    /**
     * Waits for the oldest transaction in flight. Not applied (a compare failed: a key another writer changed in the
     * target; or its answer was lost): settled alone from what the target holds: its keys as it leaves them, applied; else
     * applied with its conflicts left as they are ({@link #applyAlone}).
     */
    private void answerOldest(ChangeFeed feed) throws Exception {
        InFlight f = inFlight.removeFirst();
        Answered a;
        try {
            a = f.answer().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            a = null;
        }
        long at;
        if (a != null && a.response().isSucceeded()) {
            at = a.nanos();
        } else {
            pipelineRestarts++;
            applyAlone(f);
            at = System.nanoTime();
        }
        recorded.addAll(f.newLeases());
        confirmed = f.next();
        for (SourceTxn t : f.sources()) applied(feed, t, at);
    }

    /**
     * One pipelined transaction whose compare failed (or whose answer was lost), applied alone. Each of its source
     * transactions whose keys the target holds as it leaves them was applied (its answer lost, or by a run killed
     * before the marker moved past it, which may have grouped the source's transactions otherwise: no other transaction
     * past the marker wrote those keys), and is not applied again; of the rest, a change whose key the target does not
     * hold as the source did before is a conflict, left as it is and listed, and the others applied.
     */
    private void applyAlone(InFlight f) throws Exception {
        List<Change> left = null;
        for (int attempt = 0; ; attempt++) {
            try {
                if (left == null) {
                    left = notYetApplied(f.parts());
                    if (left.isEmpty()) return;
                } else if (holdsAfter(left)) {
                    return;
                }
                List<Cmp> cmps = new ArrayList<>();
                List<Op> ops = new ArrayList<>();
                changesAndLeases(left, cmps, ops, new ArrayList<>(f.newLeases()));
                if (kv.txn().If(cmps.toArray(Cmp[]::new)).Then(ops.toArray(Op[]::new)).commit().get(30, TimeUnit.SECONDS).isSucceeded()) return;
                List<Change> keep = keptOf(left);
                if (keep.size() == left.size()) throw new IllegalStateException("a follow transaction's compare failed and nothing explains it");
                left = keep;
            } catch (IllegalStateException e) {
                throw e;
            } catch (Exception e) {
                if (Migrator.refused(e) || attempt >= MAX_ATTEMPTS) {
                    throw new IllegalStateException("etcd has not taken the follow's transaction at source revision " + f.last().revision()
                            + " (" + e.getMessage() + "): run the same command again when it answers (it resumes there)", e);
                }
                Thread.sleep(Math.min(2000, 50L << Math.min(attempt, 6)));
            }
        }
    }

    /** The changes of those of {@code parts} (each a source transaction's) whose keys the target does not all hold as they leave them. */
    private List<Change> notYetApplied(List<List<Change>> parts) throws Exception {
        List<Change> all = new ArrayList<>();
        for (List<Change> part : parts) all.addAll(part);
        boolean[] held = heldAfter(all);
        List<Change> left = new ArrayList<>();
        int i = 0;
        for (List<Change> part : parts) {
            boolean applied = !part.isEmpty();
            for (int j = 0; j < part.size(); j++) applied &= held[i + j];
            if (!applied) left.addAll(part);
            i += part.size();
        }
        return left;
    }

    /** Whether the target holds every key of {@code changes} as they leave it (a put's value, a delete's absence). */
    private boolean holdsAfter(List<Change> changes) throws Exception {
        if (changes.isEmpty()) return false;
        for (boolean h : heldAfter(changes)) if (!h) return false;
        return true;
    }

    /** Of each of {@code changes}, whether the target holds its key as it leaves it. */
    private boolean[] heldAfter(List<Change> changes) throws Exception {
        boolean[] held = new boolean[changes.size()];
        if (changes.isEmpty()) return held;
        List<SourceKey> asRead = new ArrayList<>(changes.size());
        for (Change c : changes) asRead.add(new SourceKey(c.key(), c.value() == null ? new byte[0] : c.value(), 0, 0, 0, 0));
        List<GetResponse> read = Migrator.readBack(kv, asRead, TimeUnit.SECONDS.toMillis(30));
        for (int i = 0; i < changes.size(); i++) {
            Change c = changes.get(i);
            byte[] has = read.get(i).getKvs().isEmpty() ? null : read.get(i).getKvs().get(0).getValue().getBytes();
            held[i] = c.delete() ? has == null : has != null && Arrays.equals(has, c.value());
        }
        return held;
    }

    /**
     * Moves the marker up to {@link #confirmed} (every source transaction up to it applied) in one transaction; one move in flight at a time, the next when it is answered ({@code wait}: now, until the
     * marker says {@link #confirmed}). A marker another run moved stops the follow.
     */
    private void settleMarker(boolean wait) throws Exception {
        do {
            if (markerMove != null) {
                if (!wait && !markerMove.isDone()) return;
                TxnResponse r;
                try {
                    r = markerMove.get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    if (Migrator.refused(e)) throw new IllegalStateException("the target refused the follow's marker: " + e.getMessage(), e);
                    r = null;
                }
                if (r != null && r.isSucceeded()) {
                    markerRevision = r.getHeader().getRevision();
                    markerAt = markerMovingTo;
                    recorded.addAll(markerMoveLeases);
                    passed(markerAt.revision());
                } else {
                    GetResponse m = kv.get(ByteSequence.from(markerKey)).get(30, TimeUnit.SECONDS);
                    KeyValue now = m.getKvs().isEmpty() ? null : m.getKvs().get(0);
                    FollowMarker found = now == null ? null : FollowMarker.decode(now.getValue().getBytes());
                    if (found == null || !(found.equals(markerMovingTo) || found.equals(markerAt))) {
                        throw new IllegalStateException("the follow's marker " + until.markerKey() + " was changed by someone else (another walmigrate on this "
                                + "target?): stopped at source revision " + markerAt.revision());
                    }
                    markerRevision = now.getModRevision();
                    if (found.equals(markerMovingTo)) {
                        markerAt = markerMovingTo; // moved by the attempt whose answer was lost
                        recorded.addAll(markerMoveLeases);
                        passed(markerAt.revision());
                    }
                }
                markerMove = null;
            }
            if (confirmed.revision() > markerAt.revision()) {
                List<Op> ops = new ArrayList<>();
                List<Long> newLeases = new ArrayList<>();
                markerOps(confirmed, ops, newLeases);
                markerMovingTo = confirmed;
                markerMoveLeases = newLeases;
                try {
                    markerMove = kv.txn().If(new Cmp(ByteSequence.from(markerKey), Cmp.Op.EQUAL, CmpTarget.modRevision(markerRevision)))
                            .Then(ops.toArray(Op[]::new)).commit();
                } catch (RuntimeException e) {
                    markerMove = java.util.concurrent.CompletableFuture.failedFuture(e);
                }
            }
        } while (wait && (markerMove != null || confirmed.revision() > markerAt.revision()));
    }

    /** The marker moved to {@code revision}: the transactions up to it are no longer past it. */
    private void passed(long revision) {
        while (!pastMarker.isEmpty() && pastMarker.peekFirst().last().revision() <= revision) {
            for (java.nio.ByteBuffer k : pastMarker.removeFirst().keys()) keysPastMarker.computeIfPresent(k, (x, n) -> n == 1 ? null : n - 1);
        }
    }

    /**
     * Of {@code left}, the changes whose keys the target holds as the source did before them: the rest are conflicts
     * (counted and listed, never overwritten) or deletes of keys the target no longer holds (a lease of the target's
     * expired: as the source has it). The keys are read as the copy reads them back (read-only transactions, paged by
     * the values expected).
     */
    private List<Change> keptOf(List<Change> left) throws Exception {
        long bytes = 0;
        for (Change c : left) bytes += c.bytes();
        boolean compareValues = bytes <= MigrateOptions.MAX_REQUEST_BYTES;
        List<Change> keep = new ArrayList<>();
        List<SourceKey> asRead = new ArrayList<>(left.size());
        for (Change c : left) asRead.add(new SourceKey(c.key(), c.prev() == null ? new byte[0] : c.prev(), 0, 0, 0, 0));
        List<GetResponse> held = Migrator.readBack(kv, asRead, TimeUnit.SECONDS.toMillis(30));
        for (int i = 0; i < left.size(); i++) {
            Change c = left.get(i);
            GetResponse g = held.get(i);
            byte[] has = g.getKvs().isEmpty() ? null : g.getKvs().get(0).getValue().getBytes();
            boolean asBefore = !c.prevKnown() || (c.prev() == null ? has == null : has != null && (Arrays.equals(has, c.prev())
                    || (!(compareValues && c.prev().length <= COMPARE_VALUE_BYTES))));
            if (asBefore) {
                keep.add(c);
            } else if (c.delete() && has == null) {
                absentAlready++;
            } else {
                if (conflicts++ < MigrationReport.MAX_LISTED) conflictKeys.add(c.key());
            }
        }
        return keep;
    }

    /** The compares and operations of {@code todo}'s changes; the source leases they name that the marker does not map yet. */
    private void changes(List<Change> todo, List<Cmp> cmps, List<Op> ops, List<Long> newLeases) throws Exception {
        long bytes = 0;
        for (Change c : todo) bytes += c.bytes();
        boolean compareValues = bytes <= MigrateOptions.MAX_REQUEST_BYTES;
        for (Change c : todo) {
            ByteSequence key = Migrator.wrap(c.key());
            if (c.prevKnown()) {
                if (c.prev() == null) cmps.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
                else if (compareValues && c.prev().length <= COMPARE_VALUE_BYTES) cmps.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(Migrator.wrap(c.prev()))));
                else cmps.add(new Cmp(key, Cmp.Op.GREATER, CmpTarget.version(0)));
            }
            if (c.delete()) {
                ops.add(Op.delete(key, DeleteOption.DEFAULT));
            } else {
                long lease = leases.forSource(c.lease(), 30);
                if (c.lease() > 0 && !recorded.contains(c.lease()) && !newLeases.contains(c.lease())) newLeases.add(c.lease());
                ops.add(Op.put(key, Migrator.wrap(c.value()), lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build()));
            }
        }
    }

    /** The marker moved to {@code next}, with every lease mapping not yet in it (the copy's grants and reuses). */
    private void markerOps(FollowMarker next, List<Op> ops, List<Long> newLeases) {
        if (next == null) return;
        for (Map.Entry<Long, Long> l : leases.all().entrySet()) {
            if (!recorded.contains(l.getKey()) && !newLeases.contains(l.getKey())) newLeases.add(l.getKey());
        }
        for (long l : newLeases) {
            ops.add(Op.put(ByteSequence.from(FollowMarker.leaseKey(until.markerKey(), l)),
                    ByteSequence.from(Long.toString(leases.mapped(l)), StandardCharsets.UTF_8), PutOption.DEFAULT));
        }
        ops.add(Op.put(ByteSequence.from(markerKey), ByteSequence.from(next.encode()), PutOption.DEFAULT));
    }

    /**
     * One target transaction: {@code todo}'s changes (each where the target holds what the source held before) and the
     * marker moved to {@code next}, if the marker is where this run left it. A change whose key is not as expected is a
     * conflict, dropped from the transaction; a transaction found applied (an answer lost) is not applied again.
     */
    private void applyMarker(FollowMarker next, List<Change> todo) throws Exception {
        List<Change> left = new ArrayList<>(todo);
        long silence = TimeUnit.SECONDS.toNanos(Migrator.SILENCE_SECONDS);
        long lastAnswer = System.nanoTime();
        int attempts = 0;
        for (;;) {
            try {
                List<Cmp> cmps = new ArrayList<>();
                List<Op> ops = new ArrayList<>();
                ByteSequence mk = ByteSequence.from(markerKey);
                cmps.add(new Cmp(mk, Cmp.Op.EQUAL, CmpTarget.modRevision(markerRevision)));
                List<Long> newLeases = new ArrayList<>();
                changes(left, cmps, ops, newLeases);
                markerOps(next, ops, newLeases);
                TxnResponse r = kv.txn().If(cmps.toArray(Cmp[]::new)).Then(ops.toArray(Op[]::new)).commit().get(30, TimeUnit.SECONDS);
                lastAnswer = System.nanoTime();
                if (r.isSucceeded()) {
                    markerRevision = r.getHeader().getRevision();
                    recorded.addAll(newLeases);
                    return;
                }
                // Which compare failed: the marker (another run, or this transaction applied by an attempt whose answer
                // was lost), or keys not as the source had them (conflicts).
                GetResponse m = kv.get(mk).get(30, TimeUnit.SECONDS);
                KeyValue now = m.getKvs().isEmpty() ? null : m.getKvs().get(0);
                if (now == null || now.getModRevision() != markerRevision) {
                    FollowMarker found = now == null ? null : FollowMarker.decode(now.getValue().getBytes());
                    if (found != null && next != null && found.equals(next)) {
                        markerRevision = now.getModRevision(); // applied already
                        recorded.addAll(newLeases);
                        return;
                    }
                    throw new IllegalStateException("the follow's marker " + until.markerKey() + " was changed by someone else (another walmigrate on this "
                            + "target?): stopped at source revision " + (next == null ? "?" : next.revision() - 1));
                }
                List<Change> keep = keptOf(left);
                if (keep.size() == left.size()) throw new IllegalStateException("a follow transaction's compare failed and nothing explains it");
                left = keep;
            } catch (IllegalStateException e) {
                throw e;
            } catch (Exception e) {
                if (Migrator.refused(e)) throw new IllegalStateException("the target refused a follow transaction at source revision "
                        + (next == null ? "?" : next.revision()) + ": " + e.getMessage(), e);
                if (System.nanoTime() - lastAnswer >= silence || ++attempts >= MAX_ATTEMPTS) {
                    throw new IllegalStateException("etcd has not taken the follow's transaction at source revision " + (next == null ? "?" : next.revision())
                            + " (" + e.getMessage() + "): run the same command again when it answers (it resumes there)", e);
                }
                Thread.sleep(Math.min(2000, 50L << Math.min(attempts, 6)));
            }
        }
    }

    /** The marker and its lease map, removed at the end of a cut-over whose verify found the target equal. */
    private void removeMarker() throws Exception {
        ByteSequence mk = ByteSequence.from(markerKey);
        kv.txn().If(new Cmp(mk, Cmp.Op.EQUAL, CmpTarget.modRevision(markerRevision)))
                .Then(Op.delete(mk, DeleteOption.DEFAULT), Op.delete(ByteSequence.from((until.markerKey() + "/").getBytes(StandardCharsets.UTF_8)),
                        DeleteOption.builder().isPrefix(true).build()))
                .commit().get(60, TimeUnit.SECONDS);
    }

    /**
     * The line that says the copy is done and the follow has begun: what an operator (and a runbook, and a test) waits
     * for before cutting over.
     */
    private void announce(ChangeFeed feed, long from) {
        if (notice == null) return;
        List<String> ends = new ArrayList<>();
        if (until.cutoverFile() != null) ends.add("when " + until.cutoverFile() + " appears");
        if (until.revision() > 0) ends.add("at revision " + until.revision());
        ends.add("on SIGINT or SIGTERM");
        notice.println("walmigrate: following " + feed.describe() + " after revision " + from + "; the cut-over comes " + String.join(", ", ends));
        notice.flush();
    }

    private long lastShown;

    private void showProgress(long applied, long head) {
        if (progress == null) return;
        long now = System.nanoTime();
        if (now - lastShown < 500_000_000L) return;
        lastShown = now;
        progress.printf("\rwalmigrate: following: revision %,d applied (%,d transactions), %,d behind", applied, transactions, Math.max(0, head - applied));
        progress.flush();
    }
}
