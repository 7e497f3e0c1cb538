package dev.walkit.testdata;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real etcd (Debian's etcd-server, installed by scripts/test when missing) on loopback ports with
 * temp data directories: one member or a cluster; stopped on close.
 */
public final class EtcdCluster implements AutoCloseable {
    private final List<Process> members = new ArrayList<>();
    private final List<String> clientUrls = new ArrayList<>();
    private static final long START_NANOS = Await.DEADLINE.toNanos();
    private static final int LOG_LINES = 30;
    private static final Random RANDOM = new Random();
    private static final Set<Integer> GIVEN = new HashSet<>();

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
        return start(dir, n, tls, null);
    }

    /**
     * One member whose data directory {@code etcdctl snapshot restore DB --skip-hash-check} made from {@code db} (a
     * member's db or a snapshot; its hash, if any, not checked): etcd serving what the db holds.
     */
    public static EtcdCluster restored(Path db, Path dir) throws Exception {
        return start(dir, 1, null, db);
    }

    private static EtcdCluster start(Path dir, int n, Path tls, Path restoreFrom) throws Exception {
        // A member that dies at start (its port taken between our check and its bind) or a cluster that does not
        // elect a leader in time is started once more, on new ports in a new directory: a test then fails only
        // when etcd cannot be started twice, and says why both times.
        try {
            return attempt(Files.createDirectories(dir), n, tls, restoreFrom);
        } catch (IllegalStateException first) {
            try {
                return attempt(Files.createDirectories(dir.resolve("attempt-2")), n, tls, restoreFrom);
            } catch (IllegalStateException second) {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private static EtcdCluster attempt(Path dir, int n, Path tls, Path restoreFrom) throws Exception {
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
                Path data = dir.resolve("etcd-m" + i);
                if (restoreFrom != null) restore(restoreFrom, data, "m" + i, String.join(",", initial), "http://127.0.0.1:" + peer[i], token, dir);
                // 0700, as etcd asks of its data directory (else it warns on every start)
                Files.createDirectories(data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
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
                if (tls == null) c.waitHealthy(i, dir);
                else c.waitListening(i, client[i], dir);
            }
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    /** {@code etcdctl snapshot restore} of {@code db} into {@code data} (which must not exist), as member {@code name}; fails with its output. */
    private static void restore(Path db, Path data, String name, String initial, String peerUrl, String token, Path dir) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("etcdctl", "snapshot", "restore", db.toString(), "--skip-hash-check", "--data-dir", data.toString(),
                "--name", name, "--initial-cluster", initial, "--initial-advertise-peer-urls", peerUrl, "--initial-cluster-token", token);
        pb.environment().put("ETCDCTL_API", "3");
        Path log = dir.resolve("restore-" + name + ".out");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("etcdctl snapshot restore " + db + " did not finish in " + Await.DEADLINE.toSeconds() + " s");
        }
        if (p.exitValue() != 0) {
            // Not an IllegalStateException: a db etcdctl refuses is the answer, not a start to try again.
            throw new java.io.IOException("etcdctl snapshot restore " + db + " exited " + p.exitValue() + ":\n" + Files.readString(log));
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

    private void waitHealthy(int i, Path dir) throws Exception {
        String url = clientUrls.get(i);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + START_NANOS;
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            checkAlive(dir);
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.body().contains("\"true\"")) return;
                last = "answered " + r.statusCode() + " " + r.body().strip();
            } catch (IOException e) {
                last = e.toString(); // not up yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("etcd at " + url + " did not become healthy in " + START_NANOS / 1_000_000_000L + " s ("
                + last + ")\n" + logs(dir));
    }

    /**
     * With TLS and client certificates the health endpoint needs a client certificate: wait for the member's log to say
     * it serves clients (etcd 3.4: "serving client traffic securely", after its leader is elected).
     */
    private void waitListening(int i, int port, Path dir) throws Exception {
        Path log = dir.resolve("etcd-m" + i + ".log");
        long deadline = System.nanoTime() + START_NANOS;
        while (System.nanoTime() < deadline) {
            checkAlive(dir);
            if (Await.read(log).contains("serving client traffic")) {
                new Socket(InetAddress.getLoopbackAddress(), port).close();
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("etcd m" + i + " did not serve clients on " + port + " in " + START_NANOS / 1_000_000_000L + " s\n" + logs(dir));
    }

    private void checkAlive(Path dir) {
        for (int i = 0; i < members.size(); i++) {
            Process p = members.get(i);
            if (!p.isAlive()) throw new IllegalStateException("etcd m" + i + " exited at start with status " + p.exitValue() + "\n" + logs(dir));
        }
    }

    /** The last lines of every member's output and log, for the failure message. */
    private static String logs(Path dir) {
        StringBuilder b = new StringBuilder();
        try (var s = Files.list(dir)) {
            for (Path p : s.filter(f -> Files.isRegularFile(f) && (f.toString().endsWith(".out") || f.toString().endsWith(".log"))).sorted().collect(Collectors.toList())) {
                List<String> lines = Files.readAllLines(p);
                b.append("--- ").append(p.getFileName()).append(" (last ").append(Math.min(LOG_LINES, lines.size())).append(" of ")
                        .append(lines.size()).append(" lines)\n");
                for (String l : lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size())) b.append(l).append('\n');
            }
        } catch (IOException e) {
            b.append("(logs in ").append(dir).append(" unreadable: ").append(e).append(")\n");
        }
        return b.toString();
    }

    /**
     * A free loopback port below the kernel's ephemeral range: a port taken from that range may be given to some
     * outgoing connection between this check and etcd's bind, one below it cannot. Never the same port twice in a JVM.
     */
    private static synchronized int freePort() throws IOException {
        int top = ephemeralLow() - 1;
        int bottom = Math.max(1024, top - 20_000);
        for (int tries = 0; tries < 1000; tries++) {
            int port = bottom + RANDOM.nextInt(top - bottom + 1);
            if (!GIVEN.add(port)) continue;
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException taken) {
                // in use: try another
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static int ephemeralLow() {
        try {
            int low = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
            return low > 2048 ? low : 32768;
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    @Override
    public void close() {
        for (Process p : members) {
            p.destroy();
        }
        try {
            for (Process p : members) {
                // A member that lost its peers may spend many seconds trying to hand over leadership before it exits;
                // its data is a temp directory, so it is not waited for long.
                if (!p.waitFor(2, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
