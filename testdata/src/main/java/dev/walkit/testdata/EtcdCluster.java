package dev.walkit.testdata;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A real etcd (Debian's etcd-server, installed by scripts/test when missing) on loopback ports with
 * temp data directories: one member or a cluster; stopped on close.
 */
public final class EtcdCluster implements AutoCloseable {
    private final List<Process> members = new ArrayList<>();
    private final List<String> clientUrls = new ArrayList<>();

    public static String binary() {
        for (String p : new String[] {"/usr/bin/etcd", "/usr/local/bin/etcd"}) {
            if (Files.isExecutable(Path.of(p))) return p;
        }
        throw new IllegalStateException("etcd is not installed: scripts/test installs Debian's etcd-server; or apt-get install etcd-server");
    }

    public static EtcdCluster start(Path dir, int n) throws Exception {
        return start(dir, n, null);
    }

    /** With {@code tls} (a directory holding ca.pem, server.pem, server-key.pem): https and client certificates required. */
    public static EtcdCluster start(Path dir, int n, Path tls) throws Exception {
        EtcdCluster c = new EtcdCluster();
        int[] client = new int[n];
        int[] peer = new int[n];
        for (int i = 0; i < n; i++) {
            client[i] = freePort();
            peer[i] = freePort();
        }
        List<String> initial = new ArrayList<>();
        for (int i = 0; i < n; i++) initial.add("m" + i + "=http://127.0.0.1:" + peer[i]);
        String token = "walkit-" + UUID.randomUUID();
        try {
            for (int i = 0; i < n; i++) {
                Path data = Files.createDirectories(dir.resolve("etcd-m" + i));
                String url = (tls == null ? "http" : "https") + "://127.0.0.1:" + client[i];
                List<String> cmd = new ArrayList<>(List.of(binary(), "--name", "m" + i, "--data-dir", data.toString(),
                        "--listen-client-urls", url, "--advertise-client-urls", url,
                        "--listen-peer-urls", "http://127.0.0.1:" + peer[i], "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer[i],
                        "--initial-cluster", String.join(",", initial), "--initial-cluster-token", token, "--initial-cluster-state", "new",
                        "--logger", "zap", "--log-outputs", dir.resolve("etcd-m" + i + ".log").toString()));
                if (tls != null) {
                    cmd.addAll(List.of("--cert-file", tls.resolve("server.pem").toString(), "--key-file", tls.resolve("server-key.pem").toString(),
                            "--trusted-ca-file", tls.resolve("ca.pem").toString(), "--client-cert-auth"));
                }
                ProcessBuilder pb = new ProcessBuilder(cmd);
                pb.redirectErrorStream(true).redirectOutput(dir.resolve("etcd-m" + i + ".out").toFile());
                c.members.add(pb.start());
                c.clientUrls.add(url);
            }
            for (int i = 0; i < n; i++) {
                if (tls == null) waitHealthy(c.clientUrls.get(i), dir);
                else waitListening(client[i], dir);
            }
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    public List<String> clientUrls() {
        return clientUrls;
    }

    public String endpoints() {
        return String.join(",", clientUrls);
    }

    /** Stops member {@code i} (SIGKILL). */
    public void kill(int i) throws InterruptedException {
        members.get(i).destroyForcibly();
        members.get(i).waitFor();
    }

    private static void waitHealthy(String url, Path dir) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.body().contains("true")) return;
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(100);
        }
        String logs;
        try (var s = Files.list(dir)) {
            logs = s.filter(p -> p.toString().endsWith(".out")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    return "";
                }
            }).collect(Collectors.joining("\n"));
        }
        throw new IllegalStateException("etcd at " + url + " did not become healthy:\n" + logs);
    }

    /** With TLS and client certificates the health endpoint needs a client certificate: wait for the port instead. */
    private static void waitListening(int port, Path dir) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port).close();
                Thread.sleep(500); // listening; give the member a moment to elect itself
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("etcd did not listen on " + port + "; see " + dir);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (Process p : members) {
            p.destroy();
        }
        try {
            for (Process p : members) {
                if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
