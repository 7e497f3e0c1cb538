package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The etcd client, built and connected on a thread of its own while the source is opened: gRPC's and
 * Netty's start-up (classes loaded, channel connected) is most of a second that would otherwise
 * come before the first batch. The warm-up is a serializable count-only read of one key: nothing is
 * written to the target. Its outcome is ignored; the batches see and report any failure themselves.
 */
final class EarlyClient implements AutoCloseable {
    private static final ByteSequence PROBE = ByteSequence.from(new byte[] {0});

    private final CompletableFuture<Client> client = new CompletableFuture<>();
    private boolean closed;

    private EarlyClient(MigrateOptions o) {
        Thread t = new Thread(() -> {
            try {
                Client c = EtcdClients.build(o);
                client.complete(c);
                c.getKVClient().get(PROBE, GetOption.builder().withCountOnly(true).withSerializable(true).build());
            } catch (Throwable e) {
                client.completeExceptionally(e);
            }
        }, "walmigrate-connect");
        t.setDaemon(true);
        t.start();
    }

    /** Starts building and connecting the client for {@code o}'s endpoints. */
    static EarlyClient connect(MigrateOptions o) {
        return new EarlyClient(o);
    }

    /** The client, once built; the builder's own exception if it could not be built. */
    Client get() throws IOException {
        try {
            return client.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) throw io;
            if (c instanceof RuntimeException re) throw re;
            if (c instanceof Error err) throw err;
            throw new IOException(c);
        }
    }

    /** Closes the client (once; later calls do nothing). */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Client c;
        try {
            c = get();
        } catch (IOException | RuntimeException e) {
            return; // nothing was built: nothing to close
        }
        c.close();
        dev.walkit.cli.Timing.mark("client closed");
    }
}
