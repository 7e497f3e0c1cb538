package dev.walkit.migrate;

import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.AuthenticateRequest;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.SslContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The source's watch on grpc-java's own stub, its answers taken on Netty's thread (a direct executor: no client
 * library's executors between the source and the follow's queue). Not jetcd's watch: that one ends the follow when the
 * member it is on stops ("Network closed for unknown reason"), where a source of three members goes on with two.
 * One stream at a time, to one of the source's endpoints: when it fails (the endpoint stopped, the connection dropped),
 * the watch is made again on the next endpoint from the revision after the last one delivered, for up to
 * {@link #RETRY_NANOS}; with a user, each stream carries a token authenticated for it. A cancel by the source (a
 * compaction past the revision asked, a permission denied) ends the watch with what it said. What it delivers goes to
 * {@code deliver}, in order; what ends it, once, to {@code fail}.
 */
final class EtcdWatchStream implements AutoCloseable {
    /** How long the watch is made again after a failure before the follow is told (as the client's retry of other calls). */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final Metadata.Key<String> TOKEN = Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER);

    /** The source's watch was cancelled because its history was compacted past the revision asked. */
    static final class Compacted extends IOException {
        private static final long serialVersionUID = 1L;
        final long compactRevision;

        Compacted(long compactRevision) {
            super("compacted to revision " + compactRevision);
            this.compactRevision = compactRevision;
        }
    }

    private final List<String> endpoints;
    private final SslContext ssl;
    private final String user;
    private final String password;
    private final WatchCreateRequest.Builder create;
    private final Consumer<WatchResponse> deliver;
    private final Consumer<Throwable> fail;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "walmigrate-watch-retry");
        t.setDaemon(true);
        return t;
    });
    private ManagedChannel channel;
    private StreamObserver<WatchRequest> requests;
    /** The answers of the stream open now; a stream shut (by a failure, a failover, the close) says nothing more. */
    private Answers current;
    private int endpoint;
    /** The revision the next stream starts from: after the last revision delivered. */
    private long from;
    /** When the failures in a row began (0: the stream delivers). */
    private long failingSince;
    private boolean closed;

    private EtcdWatchStream(List<String> endpoints, SslContext ssl, String user, String password, WatchCreateRequest.Builder create,
            Consumer<WatchResponse> deliver, Consumer<Throwable> fail) {
        this.endpoints = endpoints;
        this.ssl = ssl;
        this.user = user;
        this.password = password;
        this.create = create;
        this.deliver = deliver;
        this.fail = fail;
        this.from = create.getStartRevision();
    }

    /**
     * A watch of {@code create} (its key, range end, start revision and options) on the source of {@code o}, started.
     * {@code ssl} is null for plain connections; {@code password} with {@code o}'s user.
     */
    static EtcdWatchStream start(MigrateOptions o, SslContext ssl, String password, WatchCreateRequest.Builder create,
            Consumer<WatchResponse> deliver, Consumer<Throwable> fail) {
        EtcdWatchStream w = new EtcdWatchStream(o.endpoints(), ssl, o.user(), password, create, deliver, fail);
        synchronized (w) {
            w.open();
        }
        return w;
    }

    private ManagedChannel channel(String endpoint) {
        InetSocketAddress a = EtcdClients.address(endpoint);
        NettyChannelBuilder b = a != null ? NettyChannelBuilder.forAddress(a.getHostString(), a.getPort()) : NettyChannelBuilder.forTarget(endpoint);
        b.directExecutor().maxInboundMessageSize(EtcdClients.MAX_INBOUND);
        if (ssl != null) b.sslContext(ssl);
        else b.usePlaintext();
        return b.build();
    }

    /** Opens a stream on the current endpoint from {@link #from} (its token first, with a user); a failure retries. */
    private void open() {
        if (closed) return;
        try {
            channel = channel(endpoints.get(endpoint));
            WatchGrpc.WatchStub stub = WatchGrpc.newStub(channel);
            if (user != null) {
                String token = AuthGrpc.newBlockingStub(channel).withDeadlineAfter(EtcdClients.REACH.toMillis(), TimeUnit.MILLISECONDS)
                        .authenticate(AuthenticateRequest.newBuilder().setName(user).setPassword(password).build()).getToken();
                Metadata m = new Metadata();
                m.put(TOKEN, token);
                stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
            }
            Answers answers = new Answers();
            current = answers;
            StreamObserver<WatchRequest> r = stub.watch(answers);
            requests = r;
            r.onNext(WatchRequest.newBuilder().setCreateRequest(create.clone().setStartRevision(from)).build());
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** One stream's answers, on Netty's thread. */
    private final class Answers implements StreamObserver<WatchResponse> {
        @Override
        public void onNext(WatchResponse r) {
            synchronized (EtcdWatchStream.this) {
                if (closed || current != this) return;
                if (r.getCanceled()) {
                    end(r.getCompactRevision() > 0 ? new Compacted(r.getCompactRevision())
                            : new IOException("the source etcd cancelled the watch: "
                                    + (r.getCancelReason().isEmpty() ? "no reason given" : r.getCancelReason())));
                    return;
                }
                failingSince = 0;
                int n = r.getEventsCount();
                if (n > 0) from = Math.max(from, r.getEvents(n - 1).getKv().getModRevision() + 1);
                deliver.accept(r);
            }
        }

        @Override
        public void onError(Throwable t) {
            synchronized (EtcdWatchStream.this) {
                if (current == this) failed(t);
            }
        }

        @Override
        public void onCompleted() {
            synchronized (EtcdWatchStream.this) {
                if (current == this) failed(new IOException("the source etcd ended the watch"));
            }
        }
    }

    /**
     * A stream that failed: made again on the next endpoint (at once the first time, then after a pause) unless the
     * failure is the source's answer to the request itself (a permission, an invalid argument) or the retries ran out.
     */
    private void failed(Throwable t) {
        if (closed) return;
        shut();
        Status.Code code = t instanceof StatusRuntimeException s ? s.getStatus().getCode() : Status.fromThrowable(t).getCode();
        boolean lasting = code == Status.Code.PERMISSION_DENIED || code == Status.Code.INVALID_ARGUMENT || code == Status.Code.FAILED_PRECONDITION
                || code == Status.Code.UNIMPLEMENTED || (code == Status.Code.UNAUTHENTICATED && user == null);
        long now = System.nanoTime();
        if (failingSince == 0) failingSince = now;
        if (lasting || now - failingSince > RETRY_NANOS) {
            end(t);
            return;
        }
        endpoint = (endpoint + 1) % endpoints.size();
        boolean first = now == failingSince;
        retries.schedule(() -> {
            synchronized (this) {
                open();
            }
        }, first ? 0 : 500, TimeUnit.MILLISECONDS);
    }

    private void end(Throwable t) {
        closed = true;
        shut();
        retries.shutdownNow();
        fail.accept(t);
    }

    private void shut() {
        current = null;
        if (requests != null) {
            try {
                requests.onCompleted();
            } catch (RuntimeException ignored) {
                // the stream is gone already
            }
            requests = null;
        }
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        shut();
        retries.shutdownNow();
    }
}
