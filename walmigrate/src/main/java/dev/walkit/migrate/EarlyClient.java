package dev.walkit.migrate;

import dev.walkit.format.scan.Background;
import io.etcd.jetcd.Client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

/**
 * The etcd client, built and connected on a thread of its own while the source is opened: gRPC's and
 * Netty's start-up (classes loaded, channel connected) is most of a second that would otherwise
 * come before the first batch. It is handed out only once the target has answered a first read
 * ({@link EtcdClients#checkReachable}: serializable, count-only, nothing written).
 */
final class EarlyClient implements AutoCloseable {
    private final CompletableFuture<Client> client;
    /** The client once built, reachable or not: closed by {@link #close()} either way. */
    private volatile Client built;
    private boolean closed;

    private EarlyClient(MigrateOptions o) {
        client = Background.start("walmigrate-connect", () -> {
            Client c;
            try {
                c = EtcdClients.build(o);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            built = c;
            EtcdClients.checkReachable(c, o);
            return c;
        });
    }

    /** Starts building and connecting the client for {@code o}'s endpoints. */
    static EarlyClient connect(MigrateOptions o) {
        return new EarlyClient(o);
    }

    /**
     * The client, once the target has answered; the builder's own exception if it could not be built, or
     * {@link EtcdClients.Unreachable} if the target did not answer.
     */
    Client get() throws IOException {
        return Background.join(client, "the etcd client");
    }

    /**
     * Closes the client (once; later calls do nothing). One still connecting is closed when its attempt ends, on the
     * connecting thread: a job that failed before it needed the target (an unreadable source) ends at once, not after
     * the reach check's 10 s.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (!client.isDone()) {
            client.whenComplete((c, e) -> closeBuilt());
            return;
        }
        closeBuilt();
        dev.walkit.cli.Timing.mark("client closed");
    }

    /** The client built, reachable or not: closed. */
    private void closeBuilt() {
        Client c = built;
        if (c != null) c.close();
    }
}
