package dev.walkit.migrate;

import dev.walkit.format.Background;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

/**
 * The etcd client, built and connected on a thread of its own while the source is opened: gRPC's and
 * Netty's start-up (classes loaded, channel connected) is most of a second that would otherwise
 * come before the first batch. The warm-up is a serializable count-only read of one key: nothing is
 * written to the target. Its outcome is ignored; the batches see and report any failure themselves.
 */
final class EarlyClient implements AutoCloseable {
    private static final ByteSequence PROBE = ByteSequence.from(new byte[] {0});

    private final CompletableFuture<Client> client;
    private boolean closed;

    private EarlyClient(MigrateOptions o) {
        client = Background.start("walmigrate-connect", () -> {
            Client c;
            try {
                c = EtcdClients.build(o);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                c.getKVClient().get(PROBE, GetOption.builder().withCountOnly(true).withSerializable(true).build());
            } catch (RuntimeException e) {
                // the warm-up's outcome does not matter: the batches report what fails
            }
            return c;
        });
    }

    /** Starts building and connecting the client for {@code o}'s endpoints. */
    static EarlyClient connect(MigrateOptions o) {
        return new EarlyClient(o);
    }

    /** The client, once built; the builder's own exception if it could not be built. */
    Client get() throws IOException {
        return Background.join(client, "the etcd client");
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
