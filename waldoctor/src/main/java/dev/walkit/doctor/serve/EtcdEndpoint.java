package dev.walkit.doctor.serve;

import dev.walkit.cli.Json;
import dev.walkit.cli.render.AccountJson;
import dev.walkit.format.Finding;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.DamageLocator;
import io.grpc.Server;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A read-only etcd v3 endpoint over a loaded history: etcd's KV, Watch, Lease, Maintenance and Cluster services
 * (grpc-java, with the service bases jetcd-grpc generates from etcd's protos), on one address.
 */
public final class EtcdEndpoint implements AutoCloseable {
    /** TLS as etcd names its files; null certificate: plain text (loopback only, which the command checks). */
    public record Tls(Path certFile, Path keyFile, Path trustedCaFile, boolean clientCertAuth) {
    }

    private final Server server;
    private final Served served;
    private final ExecutorService streams;
    private final ScheduledExecutorService timer;

    private EtcdEndpoint(Server server, Served served, ExecutorService streams, ScheduledExecutorService timer) {
        this.server = server;
        this.served = served;
        this.streams = streams;
        this.timer = timer;
    }

    /** Serves {@code history} at {@code address} (port 0: any free one); the damage is served under {@code walkit/}. */
    public static EtcdEndpoint start(History history, InetSocketAddress address, Tls tls) throws IOException {
        overlayDamage(history);
        ExecutorService streams = Executors.newCachedThreadPool(daemon("walkit-serve-watch"));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemon("walkit-serve-progress"));
        String scheme = tls == null ? "http" : "https";
        NettyServerBuilder b = NettyServerBuilder.forAddress(address).maxInboundMessageSize(4 << 20);
        if (tls != null) {
            SslContextBuilder ssl = GrpcSslContexts.forServer(tls.certFile().toFile(), tls.keyFile().toFile());
            if (tls.trustedCaFile() != null) ssl.trustManager(tls.trustedCaFile().toFile());
            if (tls.clientCertAuth()) ssl.clientAuth(ClientAuth.REQUIRE);
            b.sslContext(ssl.build());
        }
        Served s = new Served(history, scheme + "://" + host(address) + ":" + address.getPort());
        b.addService(new KvService(s)).addService(new WatchService(s, streams, timer)).addService(new LeaseService(s).definition())
                .addService(new MaintenanceService(s)).addService(new ClusterService(s));
        Server server = b.build();
        try {
            server.start();
        } catch (IOException e) {
            streams.shutdownNow();
            timer.shutdownNow();
            throw new IOException("cannot listen on " + host(address) + ":" + address.getPort() + ": " + rootMessage(e), e);
        }
        // With port 0 the URL clients are told (member list) carries the port the system chose.
        if (address.getPort() == 0) s.clientUrl = scheme + "://" + host(address) + ":" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        return new EtcdEndpoint(server, s, streams, timer);
    }

    /**
     * Initialises, on a daemon thread beside the store's load, what the first connection would otherwise initialise
     * before its first answer: grpc-netty's HTTP/2 handler class, whose static initialiser reads every jar's Netty
     * version file and parses its dates (60 ms here, on the first request's path), and etcd's request and response
     * messages. (Warming the server's own start too was tried: it slowed the start line as much as it saved.) Nothing
     * is served or changed by it; a failure shows on the real path.
     */
    public static void warmInBackground() {
        daemon("walkit-serve-warm").newThread(() -> {
            try {
                Class.forName("io.grpc.netty.GrpcHttp2ConnectionHandler", true, EtcdEndpoint.class.getClassLoader());
                io.etcd.jetcd.api.RangeResponse.getDefaultInstance().toByteArray();
                io.etcd.jetcd.api.RangeRequest.parseFrom(io.etcd.jetcd.api.RangeRequest.newBuilder().setKey(com.google.protobuf.ByteString.copyFromUtf8("/")).build().toByteArray());
            } catch (ClassNotFoundException | com.google.protobuf.InvalidProtocolBufferException | LinkageError e) {
                // the real path meets it and says so
            }
        }).start();
    }

    /** The address as a URL's host: an IP as given ([v6] in brackets), else the name. */
    private static String host(InetSocketAddress a) {
        if (a.getAddress() == null) return a.getHostString();
        String ip = a.getAddress().getHostAddress();
        return a.getAddress() instanceof java.net.Inet6Address ? "[" + ip + "]" : ip;
    }

    private static String rootMessage(Throwable e) {
        while (e.getCause() != null) e = e.getCause();
        return e.getMessage();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The damage as keys beside the store's, when there is any: {@code walkit/account} (the account, as diagnose's
     * JSON gives it), {@code walkit/damage/NNNN} (each damaged span, then each finding, in file order of each).
     */
    public static void overlayDamage(History history) {
        Account a = history.account();
        if (a.healthy()) return;
        history.overlay(bytes("walkit/account"), bytes(AccountJson.lists(AccountJson.facts(new Json().beginObject(), a), a)
                .field("verdict", a.verdict().label()).endObject().toString()));
        int n = 0;
        for (DamageLocator.Located d : a.damage()) {
            history.overlay(bytes(String.format("walkit/damage/%04d", n++)), bytes(AccountJson.span(new Json(), d, a).toString()));
        }
        for (Finding f : a.findings()) {
            history.overlay(bytes(String.format("walkit/damage/%04d", n++)), bytes(AccountJson.finding(new Json(), f).toString()));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The URL clients reach this endpoint at. */
    public String url() {
        return served.clientUrl;
    }

    public int port() {
        return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    /** Requests answered so far. */
    public long requests() {
        return served.requests.get();
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() {
        server.shutdown();
        streams.shutdownNow();
        timer.shutdownNow();
        try {
            if (!server.awaitTermination(5, TimeUnit.SECONDS)) server.shutdownNow();
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
