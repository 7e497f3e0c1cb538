package dev.walkit.testdata;

import dev.walkit.format.Fixtures;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The real kine (../shared/tools/kine: the k3s project's server, built from source) on a loopback port over a
 * SQLite state.db in WAL mode, as k3s runs it; ready when it answers. Stopped on close; {@link #kill} as kill -9.
 */
public final class KineServer implements AutoCloseable {
    private final Process process;
    private final String endpoint;

    private KineServer(Process process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    public static Path binary() {
        return Fixtures.root().resolve("../shared/tools/kine/kine").normalize();
    }

    public static boolean available() {
        return Files.isExecutable(binary());
    }

    /** Starts kine on {@code stateDb} (made when absent), its output to {@code log}. */
    public static KineServer start(Path stateDb, Path log) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String ep = "127.0.0.1:" + port;
        Process p = new ProcessBuilder(binary().toString(), "--listen-address", "tcp://" + ep, "--endpoint",
                "sqlite://" + stateDb + "?_journal=WAL&cache=shared").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        KineServer k = new KineServer(p, ep);
        long deadline = System.nanoTime() + Await.DEADLINE.toNanos();
        for (;;) {
            try {
                Etcdctl.run(ep, null, "get", "/registry/health");
                return k;
            } catch (IllegalStateException notYet) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    k.close();
                    throw new IOException("kine did not start: " + Files.readString(log), notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    public String endpoint() {
        return endpoint;
    }

    /** kill -9: kine's last rows stay in state.db-wal. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
