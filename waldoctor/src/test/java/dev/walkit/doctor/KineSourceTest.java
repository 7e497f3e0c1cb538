package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.Fixtures;
import dev.walkit.format.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * kine's state.db as waldoctor's source: the real kine (../shared/tools/kine) takes the API server's transactions
 * (creates, updates, deletes, re-creates, leased keys) and decides what its rows mean; then, killed -9 (the last
 * rows only in state.db-wal), its database is opened from a private copy, and every revision is answered as kine
 * served it with {@code etcdctl get --rev}: value, create_revision, mod_revision, lease (kine keeps no version).
 */
class KineSourceTest {
    @TempDir
    Path dir;

    static Path kine() {
        return Fixtures.root().resolve("../shared/tools/kine/kine").normalize();
    }

    static String etcdctl(String ep, String stdin, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", ep));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, cmd + ": " + out);
        return out;
    }

    static long mod(String ep, String key) throws Exception {
        return new ObjectMapper().readTree(etcdctl(ep, null, "get", key, "-w", "json")).get("kvs").get(0).get("mod_revision").asLong();
    }

    static void create(String ep, String key, String value, long lease) throws Exception {
        String put = "put " + (lease > 0 ? "--lease=" + Long.toHexString(lease) + " " : "") + key + " " + value;
        assertTrue(etcdctl(ep, "mod(\"" + key + "\") = \"0\"\n\n" + put + "\n\n\n", "txn").startsWith("SUCCESS"));
    }

    static void change(String ep, String key, String op) throws Exception {
        assertTrue(etcdctl(ep, "mod(\"" + key + "\") = \"" + mod(ep, key) + "\"\n\n" + op + "\n\nget " + key + "\n\n", "txn").startsWith("SUCCESS"));
    }

    static Map<String, List<Long>> servedAt(String ep, long rev, Map<String, String> values) throws Exception {
        JsonNode j = new ObjectMapper().readTree(etcdctl(ep, null, "get", "/registry/", "--prefix", "--rev", String.valueOf(rev), "-w", "json"));
        Map<String, List<Long>> m = new TreeMap<>();
        if (j.get("kvs") == null) return m;
        for (JsonNode kv : j.get("kvs")) {
            String key = new String(Base64.getDecoder().decode(kv.get("key").asText()), StandardCharsets.UTF_8);
            values.put(rev + " " + key, new String(Base64.getDecoder().decode(kv.get("value").asText()), StandardCharsets.UTF_8));
            m.put(key, List.of(kv.get("create_revision").asLong(), kv.get("mod_revision").asLong(), kv.has("lease") ? kv.get("lease").asLong() : 0L));
        }
        return m;
    }

    @Test
    void everyRevisionOfAKineDbIsAnsweredAsKineServedIt() throws Exception {
        assumeTrue(Files.isExecutable(kine()), "the real kine is not at " + kine());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String ep = "127.0.0.1:" + port;
        Path data = Files.createDirectories(dir.resolve("k3s/server/db"));
        Process k = new ProcessBuilder(kine().toString(), "--listen-address", "tcp://" + ep, "--endpoint",
                "sqlite://" + data.resolve("state.db") + "?_journal=WAL&cache=shared").redirectErrorStream(true)
                .redirectOutput(dir.resolve("kine.log").toFile()).start();
        Map<Long, Map<String, List<Long>>> served = new TreeMap<>();
        Map<String, String> servedValues = new TreeMap<>();
        long last;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try {
                    etcdctl(ep, null, "get", "/registry/health");
                    break;
                } catch (AssertionError notYet) {
                    if (System.nanoTime() > deadline) throw notYet;
                    Thread.sleep(100);
                }
            }
            for (int i = 0; i < 8; i++) create(ep, "/registry/configmaps/ns0/cm-" + i, "v0-" + i, 0);
            for (int i = 0; i < 4; i++) change(ep, "/registry/configmaps/ns0/cm-" + i, "put /registry/configmaps/ns0/cm-" + i + " v1-" + i);
            change(ep, "/registry/configmaps/ns0/cm-0", "put /registry/configmaps/ns0/cm-0 v2-0");
            for (int i = 5; i < 7; i++) change(ep, "/registry/configmaps/ns0/cm-" + i, "del /registry/configmaps/ns0/cm-" + i);
            create(ep, "/registry/configmaps/ns0/cm-5", "again-5", 0);
            etcdctl(ep, null, "lease", "grant", "600");
            for (int i = 0; i < 3; i++) create(ep, "/registry/events/default/e-" + i, "ev-" + i, 600);
            last = mod(ep, "/registry/events/default/e-2");
            for (long r = 1; r <= last; r++) served.put(r, servedAt(ep, r, servedValues));
        } finally {
            k.destroyForcibly(); // kill -9: the latest rows stay in state.db-wal
            k.waitFor();
        }
        assertTrue(Files.exists(data.resolve("state.db-wal")), "kine's rows partly in its -wal");
        byte[] before = Files.readAllBytes(data.resolve("state.db-wal"));
        // k3s's server/db directory names its state.db.
        try (LogIndex x = LogIndex.load(data, null)) {
            assertEquals(dev.walkit.format.StoreFile.Kind.KINE, x.source().kind());
            assertEquals(last, x.state().revision());
            Map<String, String> values = new TreeMap<>();
            for (long r = 1; r <= last; r++) {
                Map<String, List<Long>> got = new TreeMap<>();
                for (String key : x.liveKeys("/registry/", r, 0)) {
                    KeyValue kv = x.get(key, r);
                    values.put(r + " " + key, new String(kv.value(), StandardCharsets.UTF_8));
                    got.put(key, List.of(kv.createRevision(), kv.modRevision(), kv.lease()));
                }
                assertEquals(served.get(r), got, "revision " + r);
            }
            assertEquals(servedValues, values);
            assertTrue(x.state().findings().isEmpty(), "kine's history breaks no rule: " + x.state().findings());
            assertEquals(3, x.events("/registry/configmaps/ns0/cm-0").size(), "a create and two updates");
            assertEquals(List.of(1L, 2L, 3L), x.events("/registry/configmaps/ns0/cm-0").stream().map(KeyValue::version).toList(),
                    "versions counted from the rows");
        }
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(data.resolve("state.db-wal"))), "the source's -wal is untouched");
        WalDoctorTest.Run d = WalDoctorTest.run("diagnose", data.resolve("state.db").toString());
        assertEquals(0, d.exit(), d.out() + d.err());
        assertTrue(d.out().contains(data.resolve("state.db") + ": kine state.db (SQLite, "), d.out());
        assertTrue(d.out().contains("kine keeps no version"), d.out());
    }
}
