package dev.walkit.doctor.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.testdata.Etcdctl;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command: {@code waldoctor serve} as a process on the damaged sample (its start line names the damage, which is
 * served under walkit/; SIGTERM stops it with its stop line), {@code --rev} pins the view, and a non-loopback address
 * without TLS is refused.
 */
class ServeCommandTest {
    @TempDir
    Path dir;

    static final Path SAMPLE = Path.of("..", "testdata", "fixtures", "sample", "wal");
    static final ObjectMapper JSON = new ObjectMapper();

    /** A running {@code waldoctor serve}: the process, its start line and the endpoint it names. */
    record Running(Process process, String startLine, String endpoint, Path err) {
    }

    Running start(String... args) throws Exception {
        return start(List.of(), args);
    }

    Running start(List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), WalDoctor.class.getName(), "serve", "--listen", "127.0.0.1:0"));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(dir, "serve", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + dev.walkit.testdata.Await.DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            String text = Files.readString(err);
            Matcher m = Pattern.compile("read-only at https?://(127\\.0\\.0\\.1:\\d+)").matcher(text);
            if (m.find()) return new Running(p, text.lines().findFirst().orElseThrow(), m.group(1), err);
            if (!p.isAlive()) throw new AssertionError("serve ended: " + text);
            Thread.sleep(50);
        }
        p.destroyForcibly();
        throw new AssertionError("serve did not start: " + Files.readString(err));
    }

    @Test
    void theDamagedSampleIsServedWithItsDamageNamedAndStopsOnSigterm() throws Exception {
        Running r = start(SAMPLE.toString());
        try {
            assertTrue(r.startLine().startsWith("waldoctor serve: " + SAMPLE + " (WAL format v2, 1,048,471 bytes; revisions 1..2217 served; "
                    + "DAMAGED: 2 damaged span(s)"), r.startLine());
            assertTrue(r.startLine().contains("see walkit/damage/"), r.startLine());
            // Each damaged span is a key under walkit/damage/, its value the span as every tool's JSON gives it.
            JsonNode d = JSON.readTree(Etcdctl.run(r.endpoint(), null, "get", "walkit/damage/", "--prefix", "-w", "json"));
            assertEquals(2, d.get("count").asInt(), d.toString());
            JsonNode span = JSON.readTree(Base64.getDecoder().decode(d.get("kvs").get(0).get("value").asText()));
            assertEquals("damage", span.get("type").asText());
            assertTrue(span.get("kind").asText().length() > 0 && span.has("offset") && span.has("meaning"), span.toString());
            JsonNode account = JSON.readTree(Base64.getDecoder().decode(JSON.readTree(Etcdctl.run(r.endpoint(), null, "get", "walkit/account", "-w", "json"))
                    .get("kvs").get(0).get("value").asText()));
            assertEquals("damaged", account.get("verdict").asText());
            assertEquals(2217, account.get("last_revision").asLong());
            // The store's own keys are served beside them, as replay left them.
            assertTrue(Etcdctl.run(r.endpoint(), null, "get", "/registry/", "--prefix", "--keys-only").contains("/registry/configmaps/ns0/cm-0"));
            countOnly(r.endpoint());
        } finally {
            r.process().destroy(); // SIGTERM
        }
        assertTrue(r.process().waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "stopped on SIGTERM");
        String err = Files.readString(r.err());
        assertTrue(err.lines().anyMatch(l -> l.matches("waldoctor serve: stopped after \\d+ request\\(s\\)")), err);
        assertFalse(err.contains("Exception"), err);
    }

    /** The second start of a WAL is from its saved index: the start line says which, and the answers are the same. */
    @Test
    void theSecondStartIsFromTheSavedIndex() throws Exception {
        Path wal = dir.resolve("wal");
        Files.copy(SAMPLE, wal);
        Path cache = Path.of(System.getenv("XDG_CACHE_HOME"), "walkit", "index");
        String index = Long.toHexString((Long) Files.getAttribute(wal, "unix:dev")) + "-" + Long.toHexString((Long) Files.getAttribute(wal, "unix:ino")) + ".idx";
        Files.deleteIfExists(cache.resolve(index)); // an inode a test before may have had
        List<String> answers = new ArrayList<>();
        for (String how : List.of("read whole", "from its saved index")) {
            Running r = start(wal.toString());
            try {
                assertTrue(r.startLine().matches(".* read-only at http://127\\.0\\.0\\.1:\\d+ \\(loaded in \\d+\\.\\d\\d s, " + how + "\\)"), r.startLine());
                answers.add(Etcdctl.run(r.endpoint(), null, "get", "/registry/", "--prefix", "-w", "json").replaceAll("\"cluster_id\":\\d+,", ""));
                dev.walkit.testdata.Await.until("the index saved", () -> Files.exists(cache.resolve(index)) ? true : null);
            } finally {
                r.process().destroy();
                r.process().waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertEquals(answers.get(0), answers.get(1));
        assertTrue(answers.get(0).contains("/registry/configmaps/ns0/cm-0") || answers.get(0).length() > 10_000, "a real answer");
    }

    /** Stopped (SIGTERM) while its first start's index is being saved, serve finishes the save: the next start maps it. */
    @Test
    void aStopWhileTheIndexIsSavedWaitsForIt() throws Exception {
        Path wal = dir.resolve("wal");
        Files.copy(SAMPLE, wal);
        Path cacheDir = Path.of(System.getenv("XDG_CACHE_HOME"), "walkit", "index");
        java.util.Set<Path> before = temporaries(cacheDir);
        // The failpoint holds the save 3 s: the stop comes while it waits, and must wait for it.
        Running r = start(List.of("-Dwalkit.failpoint.indexSaveDelayMs=3000"), wal.toString());
        r.process().destroy();
        assertTrue(r.process().waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        java.util.List<String> said = new ArrayList<>();
        try (dev.walkit.format.pass.StoreHistory x = dev.walkit.format.pass.Pass.history(wal, null,
                new dev.walkit.format.pass.SavedIndex.Cache(cacheDir, said::add))) {
            assertTrue(x.indexed(), "the index was saved whole before the process ended: " + said);
        }
        assertEquals(before, temporaries(cacheDir), "no save left half done");
    }

    private static java.util.Set<Path> temporaries(Path dir) throws java.io.IOException {
        if (!Files.isDirectory(dir)) return java.util.Set.of();
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".index-")).collect(java.util.stream.Collectors.toSet());
        }
    }

    /** count_only, which etcdctl 3.4 cannot ask: the count of the range, no key. */
    static void countOnly(String endpoint) throws Exception {
        ManagedChannel ch = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        try {
            KVGrpc.KVBlockingStub kv = KVGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
            RangeResponse all = kv.range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("/registry/"))
                    .setRangeEnd(ByteString.copyFromUtf8("/registry0")).build());
            RangeResponse count = kv.range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("/registry/"))
                    .setRangeEnd(ByteString.copyFromUtf8("/registry0")).setCountOnly(true).build());
            assertEquals(all.getKvsCount(), count.getCount());
            assertEquals(0, count.getKvsCount());
            assertTrue(count.getCount() > 100, "count " + count.getCount());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.range(RangeRequest.newBuilder()
                    .setKey(ByteString.copyFromUtf8("/registry/")).setRevision(all.getHeader().getRevision() + 1).build()));
            assertEquals("etcdserver: mvcc: required revision is a future revision", e.getStatus().getDescription());
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void revPinsTheServedView() throws Exception {
        Running r = start("--rev", "1000", SAMPLE.toString());
        try {
            assertTrue(r.startLine().contains("revisions 1..1000 served"), r.startLine());
            JsonNode j = JSON.readTree(Etcdctl.run(r.endpoint(), null, "get", "/registry/", "--prefix", "--keys-only", "-w", "json"));
            assertEquals(1000, j.get("header").get("revision").asLong());
            for (JsonNode kv : j.get("kvs")) assertTrue(kv.get("mod_revision").asLong() <= 1000, kv.toString());
            JsonNode status = JSON.readTree(Etcdctl.run(r.endpoint(), null, "endpoint", "status", "-w", "json"));
            assertEquals(1000, status.get(0).get("Status").get("raftIndex").asLong());
        } finally {
            r.process().destroy();
            r.process().waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void overTlsWithClientCertificates() throws Exception {
        Path t = dev.walkit.testdata.Certificates.make(dir.resolve("tls"));
        Running r = start("--cert-file", t.resolve("server.pem").toString(), "--key-file", t.resolve("server-key.pem").toString(),
                "--trusted-ca-file", t.resolve("ca.pem").toString(), "--client-cert-auth", SAMPLE.toString());
        try {
            assertTrue(r.startLine().contains("read-only at https://127.0.0.1:"), r.startLine());
            String[] tls = {"--cacert", t.resolve("ca.pem").toString(), "--cert", t.resolve("client.pem").toString(), "--key",
                    t.resolve("client-key.pem").toString()};
            List<String> get = new ArrayList<>(List.of(tls));
            get.addAll(List.of("get", "/registry/configmaps/ns0/cm-0", "--print-value-only"));
            assertFalse(Etcdctl.run(r.endpoint(), null, get.toArray(String[]::new)).isBlank());
            // Without a client certificate the handshake fails: nothing is served.
            Process p = new ProcessBuilder("etcdctl", "--endpoints", r.endpoint(), "--cacert", t.resolve("ca.pem").toString(),
                    "--dial-timeout=2s", "--command-timeout=3s", "get", "/registry/", "--prefix").redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
            assertTrue(p.exitValue() != 0 && !out.contains("/registry/configmaps"), out);
        } finally {
            r.process().destroy();
            r.process().waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = WalDoctor.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new String[] {String.valueOf(code), out.toString(), err.toString()};
    }

    @Test
    void badArgumentsAreOneLineErrors() {
        String[] r = run("serve", "--listen", "0.0.0.0:0", SAMPLE.toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].startsWith("waldoctor serve: --listen 0.0.0.0:0 is not a loopback address: serving values (Secrets included) there needs TLS"), r[2]);
        assertEquals(1, r[2].strip().lines().count(), r[2]);
        r = run("serve", "--listen", "127.0.0.1:0", "--rev", "99999", SAMPLE.toString());
        assertEquals("2", r[0]);
        assertEquals("waldoctor serve: --rev 99999 is not a revision of the store (1..2217)", r[2].strip());
        r = run("serve", "--listen", "nope", SAMPLE.toString());
        assertEquals("2", r[0]);
        assertEquals("waldoctor serve: --listen nope: not HOST:PORT", r[2].strip());
        r = run("serve", "--listen", "127.0.0.1:0", "--client-cert-auth", SAMPLE.toString());
        assertEquals("2", r[0]);
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            r = run("serve", "--listen", "127.0.0.1:" + taken.getLocalPort(), SAMPLE.toString());
            assertEquals("4", r[0]);
            assertTrue(r[2].strip().startsWith("waldoctor serve: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": "), r[2]);
            assertEquals(1, r[2].strip().lines().count(), r[2]);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        r = run("serve", "--listen", "127.0.0.1:0", "/nonexistent/wal");
        assertEquals("4", r[0]);
        assertFalse(r[2].contains("Exception"), r[2]);
    }
}
