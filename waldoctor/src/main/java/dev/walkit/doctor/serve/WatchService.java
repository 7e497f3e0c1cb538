package dev.walkit.doctor.serve;

import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * etcd's Watch over the history: from a start revision at or after the compaction, the events in the order the log
 * applied them (a transaction's events never split across responses), with {@code prev_kv} and the filters on
 * request; then the stream stays open, as on a store that takes no more writes. Below the compaction: a response
 * with {@code compact_revision} that cancels the watch, as etcd's. Progress on request and, with
 * {@code progress_notify}, every {@link #PROGRESS_EVERY_SECONDS} seconds (etcd's default: ten minutes).
 */
final class WatchService extends WatchGrpc.WatchImplBase {
    static final long PROGRESS_EVERY_SECONDS = Long.getLong("walkit.serve.progressSeconds", 600);
    /** Events in one response at most (more when one revision has more: a transaction is never split). */
    private static final int BATCH = 1000;

    private final Served served;
    private final ExecutorService streams;
    private final ScheduledExecutorService timer;

    WatchService(Served served, ExecutorService streams, ScheduledExecutorService timer) {
        this.served = served;
        this.streams = streams;
        this.timer = timer;
    }

    @Override
    public StreamObserver<WatchRequest> watch(StreamObserver<WatchResponse> out) {
        return new Stream((ServerCallStreamObserver<WatchResponse>) out);
    }

    private final class Stream implements StreamObserver<WatchRequest> {
        private final ServerCallStreamObserver<WatchResponse> out;
        private final Object ready = new Object();
        private final Map<Long, Future<?>> watches = new ConcurrentHashMap<>();
        private final Map<Long, ScheduledFuture<?>> progress = new ConcurrentHashMap<>();
        private volatile boolean closed;
        private long nextId;

        Stream(ServerCallStreamObserver<WatchResponse> out) {
            this.out = out;
            out.setOnReadyHandler(() -> {
                synchronized (ready) {
                    ready.notifyAll();
                }
            });
            out.setOnCancelHandler(this::close);
        }

        private void send(WatchResponse r) {
            synchronized (out) {
                if (!closed) out.onNext(r);
            }
        }

        /** Waits until the client takes more (no history is buffered past what the transport holds). */
        private boolean awaitReady() {
            synchronized (ready) {
                while (!closed && !out.isReady()) {
                    try {
                        ready.wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
            return !closed && !Thread.currentThread().isInterrupted();
        }

        @Override
        public void onNext(WatchRequest r) {
            served.requests.incrementAndGet();
            switch (r.getRequestUnionCase()) {
                case CREATE_REQUEST -> create(r.getCreateRequest());
                case CANCEL_REQUEST -> {
                    long id = r.getCancelRequest().getWatchId();
                    stop(id);
                    send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(id).setCanceled(true).build());
                }
                // etcd 3.4 answers a progress request with watch ID -1 and the revision in the header.
                case PROGRESS_REQUEST -> send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(-1).build());
                default -> {
                }
            }
        }

        private void create(WatchCreateRequest c) {
            long id;
            synchronized (this) {
                id = nextId++;
            }
            send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(id).setCreated(true).build());
            long start = c.getStartRevision();
            long compact = served.history.compactRevision();
            if (start > 0 && start < compact) {
                send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(id).setCompactRevision(compact).setCanceled(true)
                        .setCancelReason("etcdserver: mvcc: required revision has been compacted").build());
                return;
            }
            if (c.getProgressNotify()) {
                progress.put(id, timer.scheduleAtFixedRate(() -> send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(id).build()),
                        PROGRESS_EVERY_SECONDS, PROGRESS_EVERY_SECONDS, TimeUnit.SECONDS));
            }
            if (start <= 0 || start > served.history.latest()) return; // from now on: the served store takes no writes
            boolean noPut = c.getFiltersList().contains(WatchCreateRequest.FilterType.NOPUT);
            boolean noDelete = c.getFiltersList().contains(WatchCreateRequest.FilterType.NODELETE);
            byte[] key = c.getKey().toByteArray();
            byte[] end = KvService.end(c.getRangeEnd());
            boolean prevKv = c.getPrevKv();
            watches.put(id, streams.submit(() -> {
                List<Event> batch = new ArrayList<>();
                long[] batchRevision = {-1};
                served.history.events(start, served.history.latest(), key, end, (kv, prev) -> {
                    if (kv.isDelete() ? noDelete : noPut) return true;
                    if (batch.size() >= BATCH && kv.modRevision() != batchRevision[0]) {
                        if (!flush(id, batch)) return false;
                    }
                    Event.Builder e = Event.newBuilder().setType(kv.isDelete() ? Event.EventType.DELETE : Event.EventType.PUT).setKv(Served.kv(kv, true));
                    if (prevKv && prev != null) e.setPrevKv(Served.kv(prev, true));
                    batch.add(e.build());
                    batchRevision[0] = kv.modRevision();
                    return true;
                });
                if (!batch.isEmpty()) flush(id, batch);
                watches.remove(id);
            }));
        }

        private boolean flush(long id, List<Event> batch) {
            if (!awaitReady()) return false;
            send(WatchResponse.newBuilder().setHeader(served.header()).setWatchId(id).addAllEvents(batch).build());
            batch.clear();
            return true;
        }

        private void stop(long id) {
            Future<?> f = watches.remove(id);
            if (f != null) f.cancel(true);
            ScheduledFuture<?> p = progress.remove(id);
            if (p != null) p.cancel(false);
        }

        private void close() {
            closed = true;
            for (Long id : List.copyOf(watches.keySet())) stop(id);
            for (Long id : List.copyOf(progress.keySet())) stop(id);
            synchronized (ready) {
                ready.notifyAll();
            }
        }

        @Override
        public void onError(Throwable t) {
            close();
        }

        @Override
        public void onCompleted() {
            close();
            synchronized (out) {
                out.onCompleted();
            }
        }
    }
}
