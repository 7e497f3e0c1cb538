package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.Fixtures;
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
 * {@code --out-kine DIR}, the way back to kine: the state.db written from a WAL and from an etcd db is started by
 * the real kine (../shared/tools/kine), which serves every key with its value and its lease's TTL; and read back
 * into a WAL, the round trip WAL → kine → WAL keeps the live state.
 */
class OfflineKineTest {
    @TempDir
    Path dir;

    static Path kine() {
        return Fixtures.root().resolve("../shared/tools/kine/kine").normalize();
    }

    static String etcdctl(String ep, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", ep));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, cmd + ": " + out);
        return out;
    }

    /** What the real kine serves from {@code stateDb} under /registry/: key → value and lease (kine's lease ID is its TTL). */
    Map<String, String> servedByKine(Path stateDb) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String ep = "127.0.0.1:" + port;
        Process k = new ProcessBuilder(kine().toString(), "--listen-address", "tcp://" + ep, "--endpoint",
                "sqlite://" + stateDb + "?_journal=WAL&cache=shared").redirectErrorStream(true)
                .redirectOutput(dir.resolve("kine-" + port + ".log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            String out;
            while (true) {
                try {
                    out = etcdctl(ep, "get", "/registry/", "--prefix", "-w", "json");
                    break;
                } catch (AssertionError notYet) {
                    if (System.nanoTime() > deadline) throw notYet;
                    Thread.sleep(100);
                }
            }
            Map<String, String> m = new TreeMap<>();
            JsonNode j = new ObjectMapper().readTree(out);
            if (j.get("kvs") != null) {
                for (JsonNode kv : j.get("kvs")) {
                    String key = new String(Base64.getDecoder().decode(kv.get("key").asText()), StandardCharsets.UTF_8);
                    if (key.equals("/registry/health")) continue; // kine's own, written at its first start
                    m.put(key, new String(Base64.getDecoder().decode(kv.get("value").asText()), StandardCharsets.ISO_8859_1)
                            + " lease=" + (kv.has("lease") ? kv.get("lease").asLong() : 0));
                }
            }
            return m;
        } finally {
            k.destroy();
            k.waitFor(10, TimeUnit.SECONDS);
            k.destroyForcibly();
        }
    }

    static Map<String, String> live(KeySource s, long ttl) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (s) {
            while (s.hasNext()) {
                SourceKey k = s.next();
                m.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.ISO_8859_1)
                        + " lease=" + (k.lease() <= 0 ? 0 : s.ttlOf(k.lease(), ttl)));
            }
        }
        return m;
    }

    @Test
    void aWalsStateDbIsServedByTheRealKineAndReadsBackIntoAWal() throws Exception {
        assumeTrue(Files.isExecutable(kine()), "the real kine is not at " + kine());
        Path wal = Fixtures.path("vectors/small/wal");
        Path out = dir.resolve("k3s-db");
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", out.toString(), "--lease-ttl", "900");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("wrote " + out.resolve("state.db") + ": 116 key(s)"), r.out());
        Map<String, String> want = live(WalSource.open(wal), 900);
        assertEquals(116, want.size());
        // Round trip first (kine, once started, adds its own rows): kine → WAL keeps the live state.
        Path back = dir.resolve("back");
        WalMigrateTest.Run b = WalMigrateTest.run("kine", "--sqlite", out.resolve("state.db").toString(), "--out-wal", back.toString());
        assertEquals(0, b.exit(), b.out() + b.err());
        Map<String, String> roundTrip = new TreeMap<>();
        live(WalSource.open(back), 0).forEach((k, v) -> roundTrip.put(k, v.replaceAll(" lease=\\d+$", "")));
        Map<String, String> values = new TreeMap<>();
        want.forEach((k, v) -> values.put(k, v.replaceAll(" lease=\\d+$", "")));
        assertEquals(values, roundTrip);
        assertEquals(want, servedByKine(out.resolve("state.db")), "kine serves each key, its value, and its lease's TTL");
        // One output at a time; and every source has both (a WAL's live state as a WAL: its snapshot form).
        WalMigrateTest.Run both = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", dir.resolve("k2").toString(), "--out-wal", dir.resolve("w2").toString());
        assertEquals(2, both.exit(), both.out() + both.err());
        assertEquals("walmigrate: --out-wal and --out-kine: one output at a time", both.err().strip());
        WalMigrateTest.Run snap = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-wal", dir.resolve("w3").toString());
        assertEquals(0, snap.exit(), snap.out() + snap.err());
        assertEquals(values, live(WalSource.open(dir.resolve("w3")), 0).entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().replaceAll(" lease=\\d+$", ""), (x, y) -> x, TreeMap::new)));
        // Never over an existing database.
        WalMigrateTest.Run again = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-kine", out.toString());
        assertEquals(2, again.exit(), again.out() + again.err());
        assertTrue(again.err().contains(out.resolve("state.db") + " exists: choose an empty --out-kine directory"), again.err());
    }

    @Test
    void anEtcdDbsStateDbCarriesItsLeasesTtls() throws Exception {
        assumeTrue(Files.isExecutable(kine()), "the real kine is not at " + kine());
        Path db = Fixtures.path("etcd/snapshot.db");
        Path out = dir.resolve("rollback");
        WalMigrateTest.Run r = WalMigrateTest.run("etcd-db", "--db", db.toString(), "--out-kine", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        Map<String, String> served = servedByKine(out.resolve("state.db"));
        assertEquals(live(EtcdDbSource.open(db), 0), served);
        assertEquals("holder lease=300", served.get("/registry/leases/kube-system/l1"), served.toString());
    }
}
