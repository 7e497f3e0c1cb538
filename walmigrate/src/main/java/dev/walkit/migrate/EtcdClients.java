package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.options.GetOption;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Builds the jetcd client from the options: endpoints (fail over between them), TLS, user and password. */
final class EtcdClients {
    /** How long the target has to answer a first read before walmigrate gives up on it (as etcdctl's --dial-timeout). */
    static final Duration REACH = Duration.ofSeconds(10);
    private static final ByteSequence PROBE = ByteSequence.from(new byte[] {0});
    /**
     * The largest answer taken (gRPC's default is 4 MiB): reads are paged to about {@link Comparison#PAGE_BYTES},
     * and one value is at most etcd's request limit, so a page of values near that limit fits.
     */
    static final int MAX_INBOUND = 64 << 20;

    /**
     * The key a count-only read asks for when it wants an answer's header (its revision) or a revision's existence: the
     * job's own prefix (or one key when it has none), so that a user whose role reads that prefix only is answered, as
     * the job itself needs nothing more.
     */
    static ByteSequence probe(byte[] prefix) {
        return prefix.length == 0 ? PROBE : ByteSequence.from(prefix);
    }

    /** The target did not answer: a migration cannot start (exit 5), rather than wait for it for ever. */
    static final class Unreachable extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private EtcdClients() {
    }

    /**
     * Returns once the target answers a serializable count-only read of one key (nothing is written); throws
     * {@link Unreachable} when it does not within {@link #REACH}. The client waits for a ready connection
     * ({@code waitForReady}), so without this a stopped or unreachable etcd made every request wait.
     */
    static void checkReachable(Client c, MigrateOptions o) {
        refusedEverywhere(o.endpoints());
        try {
            c.getKVClient().get(probe(o.prefix().getBytes(StandardCharsets.UTF_8)), GetOption.builder().withCountOnly(true).withSerializable(true).build())
                    .get(REACH.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while connecting to etcd", e);
        } catch (TimeoutException e) {
            throw new Unreachable("cannot reach etcd at " + String.join(",", o.endpoints()) + ": no answer within " + REACH.toSeconds()
                    + " s (is it running? are --endpoints and the TLS options right?)", e);
        } catch (ExecutionException e) {
            Throwable root = e;
            while (root.getCause() != null) root = root.getCause();
            throw new Unreachable("cannot use etcd at " + String.join(",", o.endpoints()) + ": " + root.getMessage(), e);
        }
    }

    /**
     * Throws {@link Unreachable} at once when no endpoint takes a TCP connection and each says why (connection refused,
     * an unknown host): what the gRPC client would only report as no answer after the reach check's wait. An endpoint
     * that connects, or does not answer at all (a firewall's drop), is left to the reach check.
     */
    static void refusedEverywhere(java.util.List<String> endpoints) {
        java.util.List<String> why = new java.util.ArrayList<>();
        for (String e : endpoints) {
            java.net.InetSocketAddress a = address(e);
            if (a == null) return; // a form this check does not read: the client's own says
            try (java.net.Socket s = new java.net.Socket()) {
                if (a.isUnresolved()) {
                    why.add(e + ": unknown host " + a.getHostString());
                    continue;
                }
                s.connect(a, 2000);
                return;
            } catch (java.net.ConnectException x) {
                why.add(e + ": connection refused");
            } catch (java.io.IOException x) {
                return; // no answer (a timeout): the reach check waits and says so
            }
        }
        if (!why.isEmpty()) {
            throw new Unreachable("cannot reach etcd at " + String.join("; ", why) + " (is it running? are --endpoints right?)", null);
        }
    }

    /** {@code host:port} of an endpoint ({@code http(s)://HOST:PORT}, {@code HOST:PORT}, {@code [v6]:PORT}), or null. */
    static java.net.InetSocketAddress address(String endpoint) {
        String e = endpoint.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "");
        int slash = e.indexOf('/');
        if (slash >= 0) e = e.substring(0, slash);
        int colon = e.lastIndexOf(':');
        if (colon <= 0 || colon == e.length() - 1) return null;
        String host = e.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        try {
            int port = Integer.parseInt(e.substring(colon + 1));
            if (port <= 0 || port > 65535) return null;
            return new java.net.InetSocketAddress(host, port); // resolved here: unresolved when the host is unknown
        } catch (NumberFormatException x) {
            return null;
        }
    }

    static Client build(MigrateOptions o) throws IOException {
        return build(o, sslContext(o));
    }

    /** The client of {@code o} with {@code ssl} (null: plain connections), its {@link #sslContext}. */
    static Client build(MigrateOptions o, SslContext ssl) throws IOException {
        ClientBuilder b = Client.builder().endpoints(o.endpoints().toArray(new String[0])).connectTimeout(Duration.ofSeconds(5))
                .maxInboundMessageSize(MAX_INBOUND)
                .retryMaxDuration(Duration.ofSeconds(30)).waitForReady(true);
        if (ssl != null) b.sslContext(ssl);
        if (o.user() != null) {
            String password = firstLine(o.passwordFile());
            b.user(ByteSequence.from(o.user(), StandardCharsets.UTF_8)).password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        return b.build();
    }

    /**
     * The TLS of {@code o}'s endpoints (its CA, its client certificate and key), checked against the first endpoint; null
     * without TLS options.
     */
    static SslContext sslContext(MigrateOptions o) {
        if (o.cacert() == null && o.cert() == null) return null;
        // A TLS problem is the target's to fix, as an unreachable one is (exit 5), named now with its cause rather
        // than as "no answer" after the reach check's 10 s.
        try {
            TlsMaterial tls = TlsMaterial.read(o.cacert(), o.cert(), o.key());
            SslContextBuilder ssl = GrpcSslContexts.forClient();
            if (tls.ca != null) ssl.trustManager(tls.ca);
            if (tls.key != null) ssl.keyManager(tls.key, tls.chain);
            SslContext built = ssl.build();
            TlsProbe.check(o.endpoints().get(0), tls);
            return built;
        } catch (IOException e) {
            throw new Unreachable(e.getMessage(), e);
        }
    }

    /**
     * The password: the file's first line, without its line ending (as the help says; a file written by
     * {@code echo} or an editor ends in a newline, and what follows it is not the password).
     */
    static String firstLine(java.nio.file.Path file) throws java.io.IOException {
        try (java.io.BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line = r.readLine();
            if (line == null || line.isEmpty()) throw new java.io.IOException(file + ": --password-file is empty (its first line is the password)");
            return line;
        } catch (java.nio.file.NoSuchFileException e) {
            throw new java.io.IOException(file + ": --password-file: no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new java.io.IOException(file + ": --password-file: permission denied");
        } catch (java.io.IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(file.toString())) throw e;
            throw new java.io.IOException(file + ": --password-file: " + e.getMessage()); // a directory, a read error
        }
    }
}
