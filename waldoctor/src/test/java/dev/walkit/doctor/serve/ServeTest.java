package dev.walkit.doctor.serve;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.walkit.doctor.ServedHistory;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code waldoctor serve} against a real etcd 3.4 holding the same history, both asked by the real etcdctl: a workload
 * (puts, updates, deletes, a multi-key transaction, leases, a compaction) goes into etcd; its history, read by
 * etcdctl's watch, is written as a WAL with the same revisions, and {@code etcdctl snapshot save} writes its db.
 * Each store is served, and every answer is compared with etcd's, byte for byte where etcd's output is its own.
 */
class ServeTest {
    @TempDir
    static Path dir;
    static EtcdCluster etcd;
    static String ep;
    static long compact;
    static long last;
    static Path db;
    static Path wal;
    static final TreeMap<Long, Long> LEASES = new TreeMap<>();

    record Out(int exit, String out, String err) {
    }

    static Out ctl(String endpoint, String stdin, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoint, "--command-timeout=10s"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("ETCDCTL_API", "3");
        Path errFile = Files.createTempFile(dir, "etcdctl", ".err");
        pb.redirectError(errFile.toFile());
        Process p = pb.start();
        if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "etcdctl " + args[0] + " did not end");
        return new Out(p.exitValue(), out, Files.readString(errFile));
    }

    static void etcdctl(String stdin, String... args) throws Exception {
        Etcdctl.run(ep, stdin, args);
    }

    static long grant(long ttl) throws Exception {
        long id = Etcdctl.grant(ep, ttl);
        LEASES.put(id, ttl);
        return id;
    }

    /** Events of revisions {@code from..to}, as etcdctl's watch gives them (-w json), grouped by revision: the WAL's transactions. */
    static TreeMap<Long, List<KeyValue>> history(long from, long to) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("etcdctl", "--endpoints", ep, "watch", "--rev", String.valueOf(from), "--prefix", "", "-w", "json");
        pb.environment().put("ETCDCTL_API", "3");
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        TreeMap<Long, List<KeyValue>> txns = new TreeMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            long seen = from - 1;
            for (String line; seen < to && (line = r.readLine()) != null; ) {
                if (!line.startsWith("{")) continue;
                JsonNode resp = JSON.readTree(line);
                for (JsonNode e : resp.path("Events")) {
                    JsonNode kv = e.get("kv");
                    byte[] key = Base64.getDecoder().decode(kv.get("key").asText());
                    long rev = kv.path("mod_revision").asLong();
                    KeyValue rec = e.path("type").asInt() == 1 ? KeyValue.delete(key, rev)
                            : KeyValue.put(key, kv.path("create_revision").asLong(), rev, kv.path("version").asLong(),
                            Base64.getDecoder().decode(kv.path("value").asText("")), kv.path("lease").asLong());
                    txns.computeIfAbsent(rev, x -> new ArrayList<>()).add(rec);
                    seen = Math.max(seen, rev);
                }
            }
        } finally {
            p.destroyForcibly().waitFor();
        }
        return txns;
    }

    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void workload() throws Exception {
        etcd = EtcdCluster.start(dir.resolve("etcd"), 1);
        ep = etcd.endpoints();
        etcdctl(null, "put", "/registry/configmaps/default/a", "v1");
        etcdctl(null, "put", "/registry/configmaps/default/b", "w1");
        long l1 = grant(600);
        etcdctl(null, "put", "/registry/events/default/e1", "{\"reason\":\"Started\"}", "--lease=" + Long.toHexString(l1));
        etcdctl("\nput /registry/pods/default/p1 spec1\nput /registry/pods/default/p2 spec2\n\n\n", "txn");
        etcdctl(null, "put", "/registry/configmaps/default/a", "v2");
        etcdctl(null, "del", "/registry/configmaps/default/b");
        etcdctl(null, "put", "/registry/configmaps/default/c", "x1");
        for (int i = 0; i < 12; i++) etcdctl(null, "put", "/registry/services/specs/default/svc-" + i, "port-" + (i * 7 % 5));
        etcdctl(null, "put", "/registry/configmaps/default/a", "v3");
        compact = Etcdctl.revision(ep);
        TreeMap<Long, List<KeyValue>> txns = history(1, compact);
        etcdctl(null, "compact", String.valueOf(compact));
        etcdctl(null, "put", "/registry/configmaps/default/b", "w2");
        etcdctl(null, "del", "/registry/events/", "--prefix");
        long l2 = grant(300);
        etcdctl("\nput /registry/leases/kube-system/l1 holder --lease=" + Long.toHexString(l2) + "\ndel /registry/pods/default/p1\n\n\n", "txn");
        etcdctl(null, "put", "/registry/configmaps/default/c", "x2");
        etcdctl(null, "put", "/registry/secrets/default/s1", "hunter2");
        etcdctl(null, "put", "/registry/services/specs/default/svc-3", "port-9", "--lease=" + Long.toHexString(l2));
        etcdctl(null, "put", "/zz/after", "z");
        last = Etcdctl.revision(ep);
        txns.putAll(history(compact + 1, last));
        db = dir.resolve("snapshot.db");
        etcdctl(null, "snapshot", "save", db.toString());
        // The same history as the store writes it, with etcd's revisions: compacted at the same revision (a snapshot
        // prefix of the keys live there, then the transactions after it).
        TreeMap<byte[], KeyValue> live = new TreeMap<>(java.util.Arrays::compareUnsigned);
        for (List<KeyValue> t : txns.headMap(compact, true).values()) {
            for (KeyValue kv : t) {
                if (kv.isDelete()) live.remove(kv.key());
                else live.put(kv.key(), kv);
            }
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        RecordEncoder enc = new RecordEncoder();
        log.write(enc.encode(RecordEncoder.snapshotMarker(compact, live.size())));
        for (KeyValue kv : live.values()) log.write(enc.encode(kv.withFlags(Flags.SNAPSHOT)));
        for (List<KeyValue> t : txns.tailMap(compact, false).values()) {
            for (int i = 0; i < t.size(); i++) {
                KeyValue kv = t.get(i);
                log.write(enc.encode(i < t.size() - 1 ? kv.withFlags(kv.flags() | Flags.TXN_CONT) : kv));
            }
        }
        wal = Files.write(Files.createDirectories(dir.resolve("wal")).resolve("wal"), log.toByteArray());
        assertEquals(last, txns.lastKey(), "the WAL holds every revision");
    }

    @AfterAll
    static void stop() {
        if (etcd != null) etcd.close();
    }

    /** Serves {@code path} on a free loopback port. */
    static EtcdEndpoint serve(Path path, long rev) throws Exception {
        StoreHistory x = Pass.history(path, null);
        return EtcdEndpoint.start(new ServedHistory(x, rev), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
    }

    static String at(EtcdEndpoint e) {
        return "127.0.0.1:" + e.port();
    }

    /** etcdctl's JSON without the header's member facts (cluster and member IDs, raft term), which are each server's own. */
    static String comparable(String json) throws Exception {
        StringBuilder b = new StringBuilder();
        for (String line : json.split("\n")) {
            if (!line.startsWith("{")) {
                b.append(line).append('\n');
                continue;
            }
            JsonNode j = JSON.readTree(line);
            stripHeaders(j);
            b.append(j).append('\n');
        }
        return b.toString();
    }

    private static void stripHeaders(JsonNode j) {
        if (j instanceof ObjectNode o) {
            for (String h : List.of("header", "Header")) {
                if (o.get(h) instanceof ObjectNode hd) {
                    hd.remove("cluster_id");
                    hd.remove("member_id");
                    hd.remove("raft_term");
                }
            }
        }
        j.forEach(ServeTest::stripHeaders);
    }

    /** Asks etcd and the endpoint the same etcdctl command; both answers (exit and stdout, headers' member facts aside) must be equal. */
    static Out same(EtcdEndpoint e, String... args) throws Exception {
        Out want = ctl(ep, null, args);
        Out got = ctl(at(e), null, args);
        assertEquals(want.exit(), got.exit(), String.join(" ", args) + "\netcd: " + want + "\nserve: " + got);
        assertEquals(comparable(want.out()), comparable(got.out()), String.join(" ", args));
        if (want.exit() != 0) assertEquals(lastLine(want.err()), lastLine(got.err()), String.join(" ", args));
        return got;
    }

    /** etcdctl's error line ("Error: ..."), without its log lines. */
    static String lastLine(String err) {
        String[] lines = err.strip().split("\n");
        return lines[lines.length - 1];
    }

    static void readsAsEtcd(EtcdEndpoint e) throws Exception {
        same(e, "get", "/registry/configmaps/default/a");
        same(e, "get", "/registry/configmaps/default/nope");
        same(e, "get", "", "--prefix", "-w", "json");
        same(e, "get", "", "--prefix", "--keys-only");
        same(e, "get", "/registry/", "--prefix", "--limit", "3", "-w", "json");
        same(e, "get", "/registry/services/", "--prefix", "--sort-by", "MODIFY", "--order", "DESCEND", "-w", "json");
        same(e, "get", "/registry/services/", "--prefix", "--sort-by", "CREATE", "--order", "ASCEND");
        same(e, "get", "/registry/", "--prefix", "--sort-by", "KEY", "--order", "DESCEND", "--limit", "4", "-w", "json");
        same(e, "get", "/registry/configmaps", "/registry/pods");
        // A sort target with a limit and no order: etcd 3.4 sorts the first limit + 1 keys (in key order), not the range.
        same(e, "get", "/registry/", "--prefix", "--sort-by", "MODIFY", "--limit", "3", "-w", "json");
        same(e, "get", "/registry/", "--prefix", "--sort-by", "CREATE", "--limit", "2", "--keys-only");
        same(e, "get", "/registry/", "--prefix", "--sort-by", "VERSION", "--order", "DESCEND", "--limit", "2", "-w", "json");
        Out empty = same(e, "get", ""); // an empty key: etcd's InvalidArgument
        assertTrue(empty.exit() != 0 && empty.err().contains("key is not provided"), empty.err());
        same(e, "get", "/registry/secrets", "--from-key", "--keys-only");
        for (long r = compact; r <= last; r++) {
            same(e, "get", "", "--prefix", "--rev", String.valueOf(r), "-w", "json");
            same(e, "get", "/registry/services/", "--prefix", "--rev", String.valueOf(r), "--limit", "2", "--sort-by", "MODIFY", "-w", "json");
        }
        // etcd's own errors, in etcd's words.
        Out compacted = same(e, "get", "/registry/configmaps/default/a", "--rev", String.valueOf(compact - 1));
        assertTrue(compacted.err().contains("required revision has been compacted"), compacted.err());
        Out future = same(e, "get", "/registry/configmaps/default/a", "--rev", String.valueOf(last + 1));
        assertTrue(future.err().contains("required revision is a future revision"), future.err());
        // Read-only transactions as the API server and etcdctl send them.
        same(e, "txn", "-w", "json");
    }

    @Test
    void anEtcdDbServedAnswersAsTheEtcdItWasSavedFrom() throws Exception {
        try (EtcdEndpoint e = serve(db, 0)) {
            readsAsEtcd(e);
            txnReads(e);
            leases(e, true);
            watches(e);
            membership(e);
            writesAreRefused(e);
        }
    }

    @Test
    void theWalOfTheSameHistoryAnswersAsEtcd() throws Exception {
        try (EtcdEndpoint e = serve(wal, 0)) {
            readsAsEtcd(e);
            txnReads(e);
            leases(e, false);
            watches(e);
            writesAreRefused(e);
        }
    }

    static void txnReads(EtcdEndpoint e) throws Exception {
        for (String stdin : List.of("mod(\"/registry/configmaps/default/a\") > \"0\"\n\nget /registry/configmaps/default/a\n\nget /registry/pods/ --prefix\n\n",
                "val(\"/registry/configmaps/default/c\") = \"nope\"\n\nget /registry/configmaps/default/c\n\nget /registry/secrets/ --prefix\n\n",
                "ver(\"/registry/configmaps/default/a\") = \"3\"\ncreate(\"/registry/nope\") = \"0\"\n\nget /zz/after\n\n\n")) {
            Out want = ctl(ep, stdin, "txn", "-w", "json");
            Out got = ctl(at(e), stdin, "txn", "-w", "json");
            assertEquals(0, got.exit(), got.err());
            assertEquals(comparable(want.out()), comparable(got.out()), stdin);
        }
    }

    static void leases(EtcdEndpoint e, boolean ttls) throws Exception {
        Out list = ctl(at(e), null, "lease", "list");
        assertEquals(0, list.exit(), list.err());
        // etcd lists every lease granted and not revoked; a WAL keeps only the lease IDs of live keys (docs/format.md §5).
        long live = Long.parseLong(Etcdctl.run(ep, null, "lease", "list").lines().findFirst().orElseThrow().replaceAll("\\D", ""));
        if (ttls) assertEquals(sortedLines(ctl(ep, null, "lease", "list").out()), sortedLines(list.out()), "etcd lists by expiry");
        else assertTrue(list.out().startsWith("found ") && live >= 1, list.out());
        for (long id : LEASES.keySet()) {
            String hex = Long.toHexString(id);
            Out want = ctl(ep, null, "lease", "timetolive", hex, "--keys", "-w", "json");
            Out got = ctl(at(e), null, "lease", "timetolive", hex, "--keys", "-w", "json");
            assertEquals(0, got.exit(), got.err());
            JsonNode w = JSON.readTree(want.out());
            JsonNode g = JSON.readTree(got.out());
            assertEquals(w.path("id").asLong(), g.path("id").asLong());
            // etcd gives a lease's keys in its map's order: compared as sets (serve gives them in key order).
            assertEquals(sortedText(w.path("keys")), sortedText(g.path("keys")), "the keys live on lease " + hex);
            if (w.path("ttl").asLong() < 0) {
                assertEquals(-1, g.path("ttl").asLong(), "a lease etcd no longer has");
            } else if (ttls) {
                assertEquals(w.path("granted-ttl").asLong(), g.path("granted-ttl").asLong());
                assertEquals(g.path("granted-ttl").asLong(), g.path("ttl").asLong(), "a store at rest counts no time down");
            }
        }
    }

    static List<String> sortedText(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(k -> out.add(k.asText()));
        return out.stream().sorted().toList();
    }

    static List<String> sortedLines(String s) {
        return s.lines().sorted().toList();
    }

    static void watches(EtcdEndpoint e) throws Exception {
        for (List<String> args : List.of(List.of("--rev", String.valueOf(compact + 1), "--prefix", "/registry/"),
                List.of("--rev", String.valueOf(compact + 1), "--prefix", "", "--prev-kv"),
                List.of("--rev", String.valueOf(compact), "--prefix", "/registry/configmaps/"),
                List.of("--rev", String.valueOf(compact + 3), "/registry/configmaps/default/c"))) {
            String want = watch(ep, args, null);
            String got = watch(at(e), args, want);
            assertEquals(want, got, String.join(" ", args));
        }
        // Below the compaction: the watch is cancelled, as etcd cancels it.
        Out w = ctl(at(e), null, "watch", "--rev", String.valueOf(compact - 1), "--prefix", "");
        Out want = ctl(ep, null, "watch", "--rev", String.valueOf(compact - 1), "--prefix", "");
        assertEquals(want.exit(), w.exit());
        assertEquals(want.out(), w.out());
        assertEquals(lastLine(want.err()), lastLine(w.err()));
        assertTrue(w.err().contains("watch is canceled by the server"), w.out() + w.err());
    }

    /**
     * etcdctl watch's output for the history (the events up to the last revision), read until it has as many lines as
     * {@code like} (or, for etcd, until it is quiet), then the process is checked alive (the stream stays open) and stopped.
     */
    static String watch(String endpoint, List<String> args, String like) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoint, "watch"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        StringBuilder out = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (out) {
                        out.append(line).append('\n');
                    }
                }
            } catch (Exception ignored) {
                // the process was stopped
            }
        });
        reader.start();
        long deadline = System.nanoTime() + dev.walkit.testdata.Await.DEADLINE.toNanos();
        int quiet = 0;
        int lastLength = -1;
        while (System.nanoTime() < deadline) {
            Thread.sleep(100);
            int len;
            synchronized (out) {
                len = out.length();
                if (like != null && len >= like.length()) break;
            }
            quiet = len == lastLength ? quiet + 1 : 0;
            lastLength = len;
            if (like == null && len > 0 && quiet >= 10) break;
        }
        Thread.sleep(300);
        assertTrue(p.isAlive(), "the watch stream stays open after the history");
        p.destroy();
        p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        reader.join(10_000);
        synchronized (out) {
            return out.toString();
        }
    }

    static void membership(EtcdEndpoint e) throws Exception {
        Out status = ctl(at(e), null, "endpoint", "status", "-w", "json");
        assertEquals(0, status.exit(), status.err());
        JsonNode s = JSON.readTree(status.out()).get(0).get("Status");
        assertEquals(last, s.get("header").get("revision").asLong());
        assertEquals(Files.size(db), s.get("dbSize").asLong());
        assertEquals(s.get("leader").asLong(), s.get("header").get("member_id").asLong(), "its own leader");
        Out members = ctl(at(e), null, "member", "list", "-w", "json");
        assertEquals(0, members.exit(), members.err());
        JsonNode m = JSON.readTree(members.out()).get("members");
        assertEquals(1, m.size());
        assertEquals("http://127.0.0.1:" + e.port(), m.get(0).get("clientURLs").get(0).asText());
        Out health = ctl(at(e), null, "endpoint", "health");
        assertEquals(0, health.exit(), health.out() + health.err());
    }

    static void writesAreRefused(EtcdEndpoint e) throws Exception {
        String before = ctl(at(e), null, "get", "", "--prefix", "-w", "json").out();
        long lease = LEASES.firstKey();
        for (List<String> write : List.of(List.of("put", "/registry/x", "y"), List.of("del", "/registry/", "--prefix"),
                List.of("compact", String.valueOf(last)), List.of("lease", "grant", "60"), List.of("lease", "revoke", Long.toHexString(lease)),
                List.of("lease", "keep-alive", "--once", Long.toHexString(lease)), List.of("defrag"), List.of("member", "remove", "1"))) {
            Out o = ctl(at(e), null, write.toArray(String[]::new));
            assertNotEquals(0, o.exit(), write + " was accepted: " + o);
            assertTrue(o.err().contains("read-only"), write + ": " + o.err());
        }
        Out txn = ctl(at(e), "\nput /registry/x y\n\n\n", "txn");
        assertNotEquals(0, txn.exit());
        assertTrue(txn.err().contains("read-only"), txn.err());
        assertEquals(comparable(before), comparable(ctl(at(e), null, "get", "", "--prefix", "-w", "json").out()), "nothing changed");
    }

    @Test
    void aKeysOnlyRangeReadsNoValueOut() throws Exception {
        try (StoreHistory x = Pass.history(db, null)) {
            ServedHistory h = new ServedHistory(x, 0);
            List<dev.walkit.format.KeyValue> keys = new ArrayList<>();
            List<dev.walkit.format.KeyValue> full = new ArrayList<>();
            byte[] p = "/registry/".getBytes(StandardCharsets.UTF_8);
            byte[] end = "/registry0".getBytes(StandardCharsets.UTF_8);
            assertEquals(h.range(p, end, h.latest(), Long.MAX_VALUE, true, full::add), h.range(p, end, h.latest(), Long.MAX_VALUE, false, keys::add));
            assertEquals(full.size(), keys.size());
            assertTrue(full.stream().anyMatch(kv -> kv.value().length > 0), "the store has values");
            assertTrue(keys.stream().allMatch(kv -> kv.value().length == 0), "keys only: no value read out");
            for (int i = 0; i < keys.size(); i++) {
                assertArrayEquals(full.get(i).key(), keys.get(i).key());
                assertEquals(full.get(i).modRevision(), keys.get(i).modRevision());
            }
        }
    }
}
