package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.testdata.K8sWalGenerator;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.KineDbGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** walmigrate against a real etcd on loopback, from real SQLite files written with kine's schema. */
class WalMigrateTest {
    @TempDir
    static Path shared;

    private static EtcdCluster etcd;
    private static int prefixCounter;

    @TempDir
    Path dir;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(shared.resolve("single"), 1);
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        if (etcd != null) etcd.close();
    }

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        return run(new StringWriter(), new StringWriter(), args);
    }

    /** As {@link #run(String...)}, its output in {@code out} and {@code err} as it is printed (another thread may watch them). */
    static Run run(StringWriter out, StringWriter err, String... args) {
        int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Every test migrates under its own prefix so that they share one etcd. */
    static String prefix() {
        return "/t" + (++prefixCounter);
    }

    static Map<String, KeyValue> target(String endpoints, String prefix) throws Exception {
        try (Client c = Client.builder().endpoints(endpoints.split(",")).build()) {
            List<KeyValue> kvs = c.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getKvs();
            Map<String, KeyValue> out = new TreeMap<>();
            for (KeyValue kv : kvs) out.put(kv.getKey().toString(StandardCharsets.UTF_8), kv);
            return out;
        }
    }

    /** A kine DB whose keys all live under {@code prefix} (the generator's /registry keys, prefixed). */
    static Path kine(Path dir, String prefix, KineDbGenerator.Options o, Map<String, KineDbGenerator.Live> expected) throws Exception {
        KineDbGenerator g = new KineDbGenerator(o.withPrefix(prefix));
        Path db = dir.resolve("state.db");
        g.write(db);
        g.live().forEach((k, v) -> expected.put(k.substring(prefix.length()), v));
        return db;
    }

    static void assertMigrated(Map<String, KineDbGenerator.Live> expected, String prefix) throws Exception {
        Map<String, KeyValue> got = target(etcd.endpoints(), prefix);
        assertEquals(expected.size(), got.size(), "key count");
        for (var e : expected.entrySet()) {
            KeyValue kv = got.get(prefix + e.getKey());
            assertTrue(kv != null, "missing " + e.getKey());
            assertArrayEquals(e.getValue().value(), kv.getValue().getBytes(), e.getKey());
            assertEquals(1, kv.getVersion(), "written once: " + e.getKey());
            assertEquals(e.getValue().lease() != 0, kv.getLease() != 0, "lease attached: " + e.getKey());
        }
    }

    @Test
    void kineToEtcdThenVerifyAndRerunIsANoOp() throws Exception {
        String p = prefix();
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        Path db = kine(dir, p, KineDbGenerator.Options.of(1, 3000), want);
        byte[] before = Files.readAllBytes(db);
        Run r = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p, "--batch", "50");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertMigrated(want, p);
        assertArrayEquals(before, Files.readAllBytes(db), "the source is never written");
        Run again = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(0, again.exit(), again.out() + again.err());
        assertTrue(again.out().contains(" 0 written, " + String.format("%,d", want.size()) + " already present"), again.out());
        assertMigrated(want, p);
        Run v = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(0, v.exit(), v.out());
        assertTrue(v.out().contains("equal"), v.out());
        // One lease per distinct TTL: the events carry 3600 or 600.
        Map<String, KeyValue> got = target(etcd.endpoints(), p);
        assertEquals(2, got.values().stream().map(KeyValue::getLease).filter(l -> l != 0).distinct().count());
    }

    @Test
    void oldKineVariantsAndRowsOnlyInTheWalFile() throws Exception {
        String p = prefix();
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        Path db = kine(dir, p, new KineDbGenerator.Options(2, 1500, true, true, 300, 0, ""), want);
        assertTrue(Files.exists(dir.resolve("state.db-wal")), "the generator left rows in state.db-wal");
        Run r = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(0, r.exit(), r.out() + r.err());
        assertMigrated(want, p);
    }

    @Test
    void conflictsAreNeverOverwritten() throws Exception {
        String p = prefix();
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        Path db = kine(dir, p, KineDbGenerator.Options.of(3, 400), want);
        List<String> keys = List.copyOf(want.keySet());
        try (Client c = Client.builder().endpoints(etcd.endpoints()).build()) {
            c.getKVClient().put(ByteSequence.from(p + keys.get(0), StandardCharsets.UTF_8), ByteSequence.from(want.get(keys.get(0)).value())).get();
            c.getKVClient().put(ByteSequence.from(p + keys.get(5), StandardCharsets.UTF_8), ByteSequence.from("theirs", StandardCharsets.UTF_8)).get();
        }
        Run r = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("1 already present, 1 conflict(s)"), r.out());
        assertTrue(r.out().contains("conflict (left as it is): " + p + keys.get(5)), r.out());
        Map<String, KeyValue> got = target(etcd.endpoints(), p);
        assertEquals("theirs", got.get(p + keys.get(5)).getValue().toString(StandardCharsets.UTF_8));
        assertEquals(want.size(), got.size());
        Run v = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(1, v.exit());
        assertTrue(v.out().contains("1 different") && v.out().contains("different: " + p + keys.get(5)), v.out());

        // The same answers for a script (-w json) and as tables (-w table).
        Run again = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p, "-w", "json");
        assertEquals(1, again.exit(), again.err());
        JsonNode m = new ObjectMapper().readTree(again.out());
        assertEquals("walkit.walmigrate/v1", m.get("schema").asText());
        assertEquals(want.size(), m.get("source_keys").asLong());
        assertEquals(want.size() - 1, m.get("already_present").asLong());
        assertEquals(1, m.get("conflict_count").asLong());
        assertEquals(p + keys.get(5), m.get("conflicts").get(0).asText());
        assertEquals(1, m.get("exit_code").asInt());
        Run vj = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p, "--json");
        JsonNode j = new ObjectMapper().readTree(vj.out());
        assertEquals(1, j.get("different_count").asLong());
        assertEquals(p + keys.get(5), j.get("different").get(0).asText());
        assertFalse(j.get("equal").asBoolean());
        Run vt = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p, "-w", "table");
        assertTrue(vt.out().lines().map(l -> l.replaceAll(" +", " ")).anyMatch(l -> l.equals("| different | " + p + keys.get(5) + " (value) |")), vt.out());
        assertEquals(1, vt.exit());
    }

    @Test
    void killedMidRunThenRerunCompletesWritingNothingTwice() throws Exception {
        String p = prefix();
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        Path db = kine(dir, p, KineDbGenerator.Options.of(4, 20000), want);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process proc = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WalMigrate.class.getName(), "kine", "--sqlite",
                db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p, "--batch", "16", "--concurrency", "2")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        // Kill it once some keys are in.
        long deadline = System.nanoTime() + dev.walkit.testdata.Await.DEADLINE.toNanos();
        while (System.nanoTime() < deadline && proc.isAlive() && target(etcd.endpoints(), p).size() < 200) Thread.sleep(50);
        proc.destroyForcibly().waitFor();
        int partial = target(etcd.endpoints(), p).size();
        Run r = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(0, r.exit(), r.out() + r.err());
        assertMigrated(want, p); // every key at version 1: nothing written twice
        assertTrue(partial > 0, "the first run was killed after writing some keys (" + partial + ")");
    }

    @Test
    void walSourceReGrantsLeases() throws Exception {
        String p = prefix();
        Path wal = dir.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(6, 256 << 10)).write(wal);
        // Prefix every key: migrate then compare on the prefixed names.
        Run r = run("wal", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--lease-ttl", "900", "--prefix", "/registry/");
        assertEquals(0, r.exit(), r.out() + r.err());
        Map<String, KeyValue> got = target(etcd.endpoints(), "/registry/");
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(s.keys().liveCount(), got.size());
            Map<Long, Set<Long>> oldToNew = new HashMap<>();
            for (KeyState k : s.keys().sortedLive()) {
                KeyValue kv = got.get(new String(k.key(), StandardCharsets.UTF_8));
                assertArrayEquals(f.read(k.valueOffset(), k.valueLength()), kv.getValue().getBytes());
                if (k.lease() != 0) oldToNew.computeIfAbsent(k.lease(), x -> new java.util.HashSet<>()).add(kv.getLease());
                else assertEquals(0, kv.getLease());
            }
            assertTrue(oldToNew.values().stream().allMatch(n -> n.size() == 1), "one new lease per old lease ID");
        }
        Run v = run("verify", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/registry/");
        assertEquals(0, v.exit(), v.out());
        assertTrue(p.startsWith("/t"));
    }

    @Test
    void aRerunReusesTheLeasesItsEarlierRunGrantedAndVerifyComparesLeases() throws Exception {
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(16, 600).withPrefix("/leased"));
        Path db = dir.resolve("leased.db");
        g.write(db);
        long ttls = g.live().values().stream().mapToLong(KineDbGenerator.Live::lease).filter(l -> l > 0).distinct().count();
        assertTrue(ttls > 0, "the source has leased keys");
        JsonNode first = new ObjectMapper().readTree(run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/leased", "-w", "json").out());
        assertEquals(ttls, first.get("leases_granted").asLong(), "a lease per TTL, granted as batches first need them");
        JsonNode again = new ObjectMapper().readTree(run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/leased", "-w", "json").out());
        assertEquals(0, again.get("written").asLong());
        assertEquals(0, again.get("leases_granted").asLong(), "a rerun that writes nothing grants nothing");
        assertEquals(ttls, again.get("leases_reused").asLong(), "it finds the earlier run's leases on its keys");
        assertEquals(0, run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/leased").exit());
        // A key with the right value but without its lease is a difference.
        String leased = g.live().entrySet().stream().filter(e -> e.getValue().lease() > 0).findFirst().orElseThrow().getKey();
        long ttl = g.live().get(leased).lease();
        try (Client c = Client.builder().endpoints(etcd.endpoints().split(",")).build()) {
            c.getKVClient().put(ByteSequence.from(leased, StandardCharsets.UTF_8), ByteSequence.from(g.live().get(leased).value())).get();
        }
        Run v = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/leased");
        assertEquals(1, v.exit(), v.out());
        assertTrue(v.out().contains("  different: " + leased + " (lease: a TTL of " + ttl + " s in the source, none in the target)"), v.out());
    }

    @Test
    void valuesNearTheRequestLimitMigrateRerunAndVerify() throws Exception {
        // 12 values of 1.4 MiB (etcd's request limit is 1.5 MiB): a batch each; a rerun finds them all present
        // (read back a few at a time, not all in one answer over gRPC's 4 MiB); verify pages by bytes.
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        dev.walkit.format.RecordEncoder enc = new dev.walkit.format.RecordEncoder();
        java.util.Random rnd = new java.util.Random(15);
        for (int i = 0; i < 12; i++) {
            byte[] v = new byte[1400 << 10];
            rnd.nextBytes(v);
            log.write(enc.encode(dev.walkit.format.KeyValue.put(("/large/cm-" + i).getBytes(StandardCharsets.UTF_8), i + 1, i + 1, 1, v, 0)));
        }
        Path wal = Files.write(dir.resolve("large.wal"), log.toByteArray());
        java.io.PrintStream savedErr = System.err;
        java.io.ByteArrayOutputStream jul = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(jul, true, StandardCharsets.UTF_8));
        try {
            Run first = run("wal", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/large/");
            assertEquals(0, first.exit(), first.out() + first.err());
            assertTrue(first.out().contains("12 written"), first.out());
            Run again = run("wal", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/large/");
            assertEquals(0, again.exit(), again.out() + again.err());
            assertTrue(again.out().contains("0 written, 12 already present, 0 conflict(s)"), again.out());
            Run verify = run("verify", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/large/");
            assertEquals(0, verify.exit(), verify.out() + verify.err());
            assertTrue(verify.out().contains("12 same"), verify.out());
        } finally {
            System.setErr(savedErr);
        }
        assertEquals("", jul.toString(StandardCharsets.UTF_8), "nothing from gRPC's own logging");
    }

    @Test
    void conflictsWithLargeValuesInTheTargetAreReportedAndTheRestWritten() throws Exception {
        // 60 keys already in etcd holding 1.4 MiB each (84 MiB, over what one answer may carry); the source has
        // small other values for them, and 5 keys etcd lacks: 60 conflicts reported, left as they are, 5 written.
        java.util.Random rnd = new java.util.Random(17);
        try (Client c = Client.builder().endpoints(etcd.endpoints().split(",")).build()) {
            for (int i = 0; i < 60; i++) {
                byte[] v = new byte[1400 << 10];
                rnd.nextBytes(v);
                c.getKVClient().put(ByteSequence.from(String.format("/bigconflict/k-%02d", i), StandardCharsets.UTF_8), ByteSequence.from(v)).get();
            }
        }
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        dev.walkit.format.RecordEncoder enc = new dev.walkit.format.RecordEncoder();
        for (int i = 0; i < 65; i++) {
            byte[] key = String.format("/bigconflict/k-%02d", i).getBytes(StandardCharsets.UTF_8);
            log.write(enc.encode(dev.walkit.format.KeyValue.put(key, i + 1, i + 1, 1, ("small-" + i).getBytes(StandardCharsets.UTF_8), 0)));
        }
        Path wal = Files.write(dir.resolve("bigconflict.wal"), log.toByteArray());
        JsonNode j = new ObjectMapper().readTree(run("wal", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/bigconflict/",
                "--batch", "128", "-w", "json").out());
        assertEquals(60, j.get("conflict_count").asLong(), j.toString());
        assertEquals(5, j.get("written").asLong(), j.toString());
        assertEquals(0, j.get("not_written").asLong(), j.toString());
        assertEquals(0, j.get("errors").size(), j.toString());
    }

    @Test
    void keysThatAreNotUtf8ArePrintedQuotedAndInJsonAlsoAsBase64() throws Exception {
        // "/nonutf8/café" in Latin-1: the é is the single byte E9, no UTF-8 at all.
        byte[] key = {'/', 'n', 'o', 'n', 'u', 't', 'f', '8', '/', 'c', 'a', 'f', (byte) 0xE9};
        Path wal = Files.write(dir.resolve("latin1.wal"), new dev.walkit.format.RecordEncoder().encode(dev.walkit.format.KeyValue.put(key, 1, 1, 1, new byte[] {1}, 0)));
        Run text = run("verify", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/nonutf8/");
        assertEquals(1, text.exit(), text.err());
        assertTrue(text.out().contains("  missing: /nonutf8/caf\\xe9\n"), text.out());
        JsonNode j = new ObjectMapper().readTree(run("verify", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/nonutf8/", "-w", "json").out());
        assertEquals("/nonutf8/caf\\xe9", j.get("missing").get(0).asText());
        assertArrayEquals(key, java.util.Base64.getDecoder().decode(j.get("missing_base64").get(0).asText()), "the base64 form is the key's bytes");
        assertEquals(0, run("wal", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/nonutf8/").exit());
        Run after = run("verify", "--wal", wal.toString(), "--endpoints", etcd.endpoints(), "--prefix", "/nonutf8/");
        assertEquals(0, after.exit(), after.out() + after.err());
    }

    @Test
    void offlineWalFromKine() throws Exception {
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(7, 800));
        Path db = dir.resolve("state.db");
        g.write(db);
        want.putAll(g.live());
        Path out = dir.resolve("out");
        Run r = run("kine", "--sqlite", db.toString(), "--out-wal", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        try (WalFile f = WalFile.open(out.resolve("wal"), ReaderOptions.defaults().maxRecLen())) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(List.of(), s.damage());
            assertEquals(Map.of(), s.findingCounts());
            assertEquals(g.revision(), s.compactRevision());
            assertEquals(want.size(), s.keys().liveCount());
            for (KeyState k : s.keys().sortedLive()) {
                KineDbGenerator.Live l = want.get(new String(k.key(), StandardCharsets.UTF_8));
                assertArrayEquals(l.value(), f.read(k.valueOffset(), k.valueLength()));
                assertEquals(l.lease(), k.lease());
            }
        }
        Path out2 = dir.resolve("out2");
        JsonNode j = new ObjectMapper().readTree(run("kine", "--sqlite", db.toString(), "--out-wal", out2.toString(), "-w", "json").out());
        assertEquals("offline-wal", j.get("type").asText());
        assertEquals(out2.resolve("wal").toString(), j.get("wal").asText());
        assertEquals(want.size(), j.get("keys").asLong());
        assertEquals(g.revision(), j.get("revision").asLong());
        // Never over an existing DIR/wal: a usage error, the file as it was.
        byte[] before = Files.readAllBytes(out.resolve("wal"));
        Run again = run("kine", "--sqlite", db.toString(), "--out-wal", out.toString());
        assertEquals(2, again.exit(), again.err());
        assertEquals("walmigrate: " + out.resolve("wal") + " exists: choose an empty --out-wal directory\n", again.err());
        assertArrayEquals(before, Files.readAllBytes(out.resolve("wal")));
    }

    @Test
    void aValueTooLargeForAnyRequestIsReported() throws Exception {
        String p = prefix();
        Map<String, KineDbGenerator.Live> want = new TreeMap<>();
        Path db = kine(dir, p, new KineDbGenerator.Options(8, 100, false, false, 0, 2 << 20, ""), want);
        Run r = run("kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--prefix", p);
        assertEquals(5, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("too large for any request: " + p + "/registry/configmaps/kube-system/huge"), r.err());
        want.remove("/registry/configmaps/kube-system/huge");
        assertMigrated(want, p);
    }

    @Test
    void threeMembersOneStoppedMidMigration() throws Exception {
        try (EtcdCluster three = EtcdCluster.start(dir.resolve("three"), 3)) {
            Map<String, KineDbGenerator.Live> want = new TreeMap<>();
            Path db = kine(Files.createDirectories(dir.resolve("k")), "/c", KineDbGenerator.Options.of(9, 6000), want);
            AtomicInteger seenAtKill = new AtomicInteger(-1);
            Thread killer = new Thread(() -> {
                try {
                    long deadline = System.nanoTime() + dev.walkit.testdata.Await.DEADLINE.toNanos();
                    int seen = 0;
                    while (System.nanoTime() < deadline && (seen = target(three.endpoints(), "/c").size()) < 100) Thread.sleep(20);
                    three.kill(2);
                    seenAtKill.set(seen);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            killer.start();
            Run r = run("kine", "--sqlite", db.toString(), "--endpoints", three.endpoints(), "--prefix", "/c", "--batch", "32", "--concurrency", "4");
            killer.join();
            assertEquals(0, r.exit(), r.out() + r.err());
            // The member was stopped while the job was writing, not before it began or after it ended.
            assertTrue(seenAtKill.get() >= 100 && seenAtKill.get() < want.size(), "keys written when m2 was stopped: " + seenAtKill.get());
            String alive = String.join(",", three.clientUrls().subList(0, 2));
            Map<String, KeyValue> got = target(alive, "/c");
            assertEquals(want.size(), got.size());
            for (var e : want.entrySet()) assertArrayEquals(e.getValue().value(), got.get("/c" + e.getKey()).getValue().getBytes());
            assertEquals(0, run("verify", "--sqlite", db.toString(), "--endpoints", alive, "--prefix", "/c").exit());
        }
    }
}
