package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.EtcdCluster;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.walkit.migrate.FollowMigrateTest.bs;
import static dev.walkit.migrate.FollowMigrateTest.client;
import static dev.walkit.migrate.FollowMigrateTest.served;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of {@code walmigrate etcd --follow} at a random moment (in the copy or in the follow), ten times, while the
 * source keeps being written; each time the same command run again resumes where the target's marker says, and after
 * the cut-over: the target equals the source; every source revision after the copy's was applied exactly once (the
 * marker's history in the target); no key was written twice with one value (nothing overwritten by a repeat).
 */
class FollowKillTest {
    @TempDir
    Path dir;

    private static final int TRIALS = 10;

    static Process start(List<String> args, Path out) throws Exception {
        // C1 only and the serial collector, as a short-lived JVM: twenty runs each killed or cut over within seconds, on
        // the cores the two etcds and the writer share.
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), WalMigrate.class.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(out.resolveSibling(out.getFileName() + ".err").toFile()).start();
    }

    /** An event as the per-key histories compare it: PUT and the value, or DELETE. */
    private static String event(WatchEvent e) {
        return e.getEventType() == WatchEvent.EventType.DELETE ? "DELETE" : "PUT " + e.getKeyValue().getValue().toString(StandardCharsets.UTF_8);
    }

    /**
     * Every event under {@code prefix} from {@code from} on, up to now: a last key put under the prefix marks the end, and
     * the watch is read until it brings that key (left out of the list).
     */
    private static List<WatchEvent> history(Client c, String prefix, long from) throws Exception {
        String end = prefix + "~history-end-" + System.nanoTime();
        c.getKVClient().put(bs(end), bs("")).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        List<WatchEvent> events = new CopyOnWriteArrayList<>();
        AtomicBoolean reached = new AtomicBoolean();
        Watch.Watcher w = c.getWatchClient().watch(bs(prefix), WatchOption.builder().isPrefix(true).withRevision(from).build(), r -> {
            for (WatchEvent e : r.getEvents()) {
                if (e.getKeyValue().getKey().toString(StandardCharsets.UTF_8).equals(end)) reached.set(true);
                else if (!reached.get()) events.add(e);
            }
        });
        try {
            Await.until("the watch of " + prefix + " from revision " + from + " to reach " + end, reached::get, () -> events.size() + " events so far");
        } finally {
            w.close();
        }
        return events;
    }

    /** The revision of the follow's marker in the target, once its copy is done (phase FOLLOW); else -1. */
    private static long followedTo(Client t, String marker) throws Exception {
        List<io.etcd.jetcd.KeyValue> kvs = t.getKVClient().get(bs(marker)).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getKvs();
        if (kvs.isEmpty()) return -1;
        FollowMarker m = FollowMarker.decode(kvs.get(0).getValue().getBytes());
        return m != null && m.phase() == FollowMarker.Phase.FOLLOW ? m.revision() : -1;
    }

    @Test
    void killedAtRandomMomentsEveryResumedFollowEndsEqualWithNothingTwiceAndNothingLost() throws Exception {
        Random rnd = new Random(20261205);
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            List<String> resumedAt = new ArrayList<>();
            for (int trial = 0; trial < TRIALS; trial++) {
                String prefix = "/t" + trial + "/";
                String marker = "/walkit/walmigrate/t" + trial;
                for (int b = 0; b < 20; b++) { // 2,000 keys before the copy
                    Op[] puts = new Op[100];
                    for (int i = 0; i < 100; i++) puts[i] = Op.put(bs(prefix + "k-" + (b * 100 + i)), bs("v0"), PutOption.DEFAULT);
                    kv.txn().Then(puts).commit().get();
                }
                long targetFrom = t.getKVClient().get(bs(marker)).get().getHeader().getRevision() + 1;
                AtomicBoolean writing = new AtomicBoolean(true);
                Random w = new Random(trial);
                Thread writer = new Thread(() -> {
                    int n = 0;
                    try {
                        while (writing.get()) {
                            n++;
                            String key = prefix + "k-" + w.nextInt(2200);
                            if (n % 5 == 0) kv.delete(bs(key)).get();
                            else if (n % 7 == 0) kv.txn().Then(Op.put(bs(key), bs("w" + n), PutOption.DEFAULT),
                                    Op.put(bs(prefix + "x-" + n), bs("w" + n), PutOption.DEFAULT), Op.delete(bs(prefix + "x-" + (n - 7)), DeleteOption.DEFAULT)).commit().get();
                            else kv.put(bs(key), bs("w" + n)).get(); // every value written once
                            Thread.sleep(1);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                writer.start();
                Path cut = dir.resolve("cutover-" + trial);
                List<String> args = List.of("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--prefix", prefix,
                        "--marker", marker, "--follow", "--cutover", cut.toString(), "-w", "json");
                Path firstOut = dir.resolve("first-" + trial);
                Process first = start(args, firstOut);
                // The kill comes in the copy (its marker there, phase COPY) or in the follow (its line printed), a random
                // moment after the state it waits for, whatever the machine's speed.
                boolean inCopy = rnd.nextInt(10) < 3;
                if (inCopy) {
                    Await.until("trial " + trial + ": the first run's copy to begin (its marker in the target)",
                            () -> !t.getKVClient().get(bs(marker)).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getKvs().isEmpty() || !first.isAlive(),
                            () -> Await.read(firstOut.resolveSibling(firstOut.getFileName() + ".err")));
                } else {
                    Await.contains("trial " + trial + ": the first run's follow to begin", firstOut.resolveSibling(firstOut.getFileName() + ".err"),
                            "walmigrate: following ", first);
                }
                long pause = rnd.nextInt(inCopy ? 200 : 1000);
                if (pause > 0) first.waitFor(pause, TimeUnit.MILLISECONDS); // a random moment past that state (it runs meanwhile)
                first.destroyForcibly().waitFor();
                boolean marked = !t.getKVClient().get(bs(marker)).get().getKvs().isEmpty();
                Path out = dir.resolve("second-" + trial);
                Process second = start(args, out);
                Await.contains("trial " + trial + ": the resumed follow to begin", out.resolveSibling(out.getFileName() + ".err"), "walmigrate: following ", second);
                // It follows the writes: the target's marker passes a source revision written after it began.
                long written = kv.put(bs(prefix + "resumed"), bs("at-" + trial)).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getHeader().getRevision();
                Await.until("trial " + trial + ": the resumed follow to apply revision " + written, () -> followedTo(t, marker) >= written,
                        () -> "marker at " + Await.now(() -> followedTo(t, marker)) + "; " + Await.read(out.resolveSibling(out.getFileName() + ".err")));
                writing.set(false);
                writer.join();
                Files.createFile(cut);
                assertTrue(second.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "the resumed run ends at the cut-over");
                String err = Files.readString(out.resolveSibling(out.getFileName() + ".err"));
                assertEquals(0, second.exitValue(), Files.readString(out) + err);
                JsonNode j = new ObjectMapper().readTree(Files.readString(out));
                assertTrue(j.get("equal").asBoolean(), j.toString());
                if (marked) {
                    assertTrue(j.get("resumed").isTextual(), "the report says where it resumed: " + j);
                    resumedAt.add(j.get("resumed").asText());
                }
                assertEquals(served(s, prefix, false), served(t, prefix, false), "trial " + trial);
                assertEquals(0, t.getKVClient().get(bs(marker), GetOption.builder().isPrefix(true).build()).get().getCount(), "marker removed");

                // Every source change after the copy's revision applied once, each key's in the source's order: each
                // key's history in the target after the copy (the marker's first follow phase) is the source's after the
                // copy's revision, event for event. The marker only moves forward.
                long copy = -1;
                long followFrom = -1;
                List<Long> markerMoves = new ArrayList<>();
                for (WatchEvent e : history(t, marker, targetFrom)) {
                    if (e.getEventType() != WatchEvent.EventType.PUT || !e.getKeyValue().getKey().toString(StandardCharsets.UTF_8).equals(marker)) continue;
                    FollowMarker m = FollowMarker.decode(e.getKeyValue().getValue().getBytes());
                    assertNotNull(m);
                    if (m.phase() != FollowMarker.Phase.FOLLOW) continue;
                    if (copy < 0) {
                        copy = m.revision();
                        followFrom = e.getKeyValue().getModRevision();
                    } else {
                        markerMoves.add(m.revision());
                    }
                }
                assertTrue(copy > 0, "the copy finished once");
                List<Long> sortedMoves = new ArrayList<>(markerMoves);
                java.util.Collections.sort(sortedMoves);
                assertEquals(sortedMoves, markerMoves, "trial " + trial + ": the marker only moves forward");
                long cutAt = j.get("cutover_revision").asLong();
                Map<String, List<String>> want = new java.util.TreeMap<>();
                for (WatchEvent e : history(s, prefix, copy + 1)) {
                    if (e.getKeyValue().getModRevision() <= cutAt) want.computeIfAbsent(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8), k -> new ArrayList<>()).add(event(e));
                }
                Map<String, List<String>> got = new java.util.TreeMap<>();
                for (WatchEvent e : history(t, prefix, followFrom + 1)) {
                    got.computeIfAbsent(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8), k -> new ArrayList<>()).add(event(e));
                }
                assertEquals(want, got, "trial " + trial + ": each source change after revision " + copy + " once, each key's in order");
            }
            assertTrue(resumedAt.size() >= TRIALS / 2, "most kills came after the marker: " + resumedAt);
            System.out.println("FollowKillTest: resumed " + resumedAt);
        }
    }

    /**
     * A follow into two shards ({@code --route PREFIXx-=SECOND}: the writer's three-key transactions write both), killed
     * at a random moment past its start and run again (ten trials): each shard resumes from its own marker; at the cut-over each holds
     * exactly its part of the source, and each key's history in it after its copy is the source's, event for event.
     */
    @Test
    void aShardedFollowKilledAtRandomMomentsResumesEachShardToTheSameEnd() throws Exception {
        Random rnd = new Random(20261206);
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             EtcdCluster dst2 = EtcdCluster.start(dir.resolve("dst2"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints()); Client t2 = client(dst2.endpoints())) {
            KV kv = s.getKVClient();
            for (int trial = 0; trial < TRIALS; trial++) {
                String prefix = "/s" + trial + "/";
                String routed = prefix + "x-";
                String marker = "/walkit/walmigrate/s" + trial;
                for (int i = 0; i < 300; i++) kv.put(bs(prefix + (i % 3 == 0 ? "x-" : "k-") + i), bs("v0")).get();
                long from1 = t.getKVClient().get(bs(marker)).get().getHeader().getRevision() + 1;
                long from2 = t2.getKVClient().get(bs(marker)).get().getHeader().getRevision() + 1;
                AtomicBoolean writing = new AtomicBoolean(true);
                Random w = new Random(trial);
                Thread writer = new Thread(() -> {
                    int n = 0;
                    try {
                        while (writing.get()) {
                            n++;
                            if (n % 3 == 0) kv.txn().Then(Op.put(bs(prefix + "k-" + w.nextInt(400)), bs("w" + n), PutOption.DEFAULT),
                                    Op.put(bs(routed + n), bs("w" + n), PutOption.DEFAULT), Op.delete(bs(routed + (n - 3)), DeleteOption.DEFAULT)).commit().get();
                            else kv.put(bs(prefix + "k-" + w.nextInt(400)), bs("w" + n)).get(); // paced by its answers
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                writer.start();
                Path cut = dir.resolve("shard-cutover-" + trial);
                List<String> args = List.of("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--prefix", prefix,
                        "--route", routed + "=" + dst2.endpoints(), "--marker", marker, "--follow", "--cutover", cut.toString(), "-w", "json");
                Path firstOut = dir.resolve("shard-first-" + trial);
                Process first = start(args, firstOut);
                Await.contains("trial " + trial + ": the first run's follow to begin", firstOut.resolveSibling(firstOut.getFileName() + ".err"),
                        "walmigrate: following ", first);
                // The kill comes once the main shard's marker has moved a random number of source revisions past where the
                // follow began: a moment in the follow, whatever the machine's speed.
                long began = followedTo(t, marker);
                long past = began + rnd.nextInt(300);
                Await.until("trial " + trial + ": the first run's marker to pass revision " + past, () -> followedTo(t, marker) >= past || !first.isAlive(),
                        () -> "marker at " + Await.now(() -> followedTo(t, marker)) + "; " + Await.read(firstOut.resolveSibling(firstOut.getFileName() + ".err")));
                first.destroyForcibly().waitFor();
                Path out = dir.resolve("shard-second-" + trial);
                Process second = start(args, out);
                Path errFile = out.resolveSibling(out.getFileName() + ".err");
                Await.until("trial " + trial + ": both resumed shards to follow", () -> Await.read(errFile).split("walmigrate: following ", -1).length - 1 >= 2
                        || !second.isAlive(), () -> Await.read(errFile));
                long written = kv.txn().Then(Op.put(bs(prefix + "k-resumed"), bs("at-" + trial), PutOption.DEFAULT),
                        Op.put(bs(routed + "resumed"), bs("at-" + trial), PutOption.DEFAULT)).commit().get().getHeader().getRevision();
                Await.until("trial " + trial + ": both shards to apply revision " + written,
                        () -> followedTo(t, marker) >= written && followedTo(t2, marker) >= written, () -> Await.read(errFile));
                writing.set(false);
                writer.join();
                Files.createFile(cut);
                assertTrue(second.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "the resumed run ends at the cut-over");
                assertEquals(0, second.exitValue(), Files.readString(out) + Await.read(errFile));
                List<JsonNode> reports = new ArrayList<>();
                for (String line : Files.readString(out).lines().toList()) reports.add(new ObjectMapper().readTree(line));
                assertEquals(2, reports.size(), Files.readString(out));
                for (JsonNode j : reports) assertTrue(j.get("equal").asBoolean(), j.toString());
                Map<String, String> all = served(s, prefix, false);
                Map<String, String> wantRouted = new java.util.TreeMap<>(all);
                wantRouted.keySet().removeIf(k -> !k.startsWith(routed));
                Map<String, String> wantRest = new java.util.TreeMap<>(all);
                wantRest.keySet().removeIf(k -> k.startsWith(routed));
                assertEquals(wantRouted, served(t2, prefix, false), "trial " + trial + ": the routed shard");
                assertEquals(wantRest, served(t, prefix, false), "trial " + trial + ": the rest");
                assertEquals(0, t.getKVClient().get(bs(marker)).get().getCount() + t2.getKVClient().get(bs(marker)).get().getCount(), "markers removed");
                // Each shard: each key's history after its copy is the source's, event for event (nothing twice, nothing lost).
                // The reports in shard order: the route's, then --endpoints' (the rest).
                for (Object[] shard : new Object[][] {{t, from1, false, reports.get(1)}, {t2, from2, true, reports.get(0)}}) {
                    long cutAt = ((JsonNode) shard[3]).get("cutover_revision").asLong();
                    Client c = (Client) shard[0];
                    long copy = -1;
                    long followFrom = -1;
                    for (WatchEvent e : history(c, marker, (Long) shard[1])) {
                        if (e.getEventType() != WatchEvent.EventType.PUT || !e.getKeyValue().getKey().toString(StandardCharsets.UTF_8).equals(marker)) continue;
                        FollowMarker m = FollowMarker.decode(e.getKeyValue().getValue().getBytes());
                        if (m != null && m.phase() == FollowMarker.Phase.FOLLOW && copy < 0) {
                            copy = m.revision();
                            followFrom = e.getKeyValue().getModRevision();
                        }
                    }
                    assertTrue(copy > 0, "the copy finished once");
                    boolean isRouted = (Boolean) shard[2];
                    Map<String, List<String>> want = new java.util.TreeMap<>();
                    for (WatchEvent e : history(s, prefix, copy + 1)) {
                        String k = e.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
                        if (k.startsWith(routed) != isRouted || e.getKeyValue().getModRevision() > cutAt) continue;
                        want.computeIfAbsent(k, x -> new ArrayList<>()).add(event(e));
                    }
                    Map<String, List<String>> got = new java.util.TreeMap<>();
                    for (WatchEvent e : history(c, prefix, followFrom + 1)) {
                        got.computeIfAbsent(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8), x -> new ArrayList<>()).add(event(e));
                    }
                    want.keySet().removeIf(k -> k.contains("~history-end-"));
                    got.keySet().removeIf(k -> k.contains("~history-end-"));
                    assertEquals(want, got, "trial " + trial + (isRouted ? ": the routed shard" : ": the rest") + ": each change once, each key's in order");
                }
            }
        }
    }

    @Test
    void aCutOverBySignalThatFailsExitsWithTheFailuresCodeInOneLine() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints())) {
            for (int i = 0; i < 20; i++) s.getKVClient().put(bs("/t/k-" + i), bs("v")).get();
            Path out = dir.resolve("follow");
            Process p = start(List.of("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--prefix", "/t/", "--follow"), out);
            Await.contains("the follow to begin", out.resolveSibling(out.getFileName() + ".err"), "walmigrate: following ", p);
            dst.kill(0); // the target is gone: the cut-over's check cannot reach it
            p.destroy(); // SIGTERM: the cut-over
            assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
            String err = Files.readString(out.resolveSibling(out.getFileName() + ".err"));
            assertEquals(5, p.exitValue(), "the failure's exit code (the target), not 70: " + err);
            List<String> lines = err.lines().filter(l -> !l.isBlank()).toList();
            assertEquals(2, lines.size(), "the follow's line, then the failure's one line: " + err);
            assertTrue(lines.get(0).startsWith("walmigrate: following "), err);
            assertTrue(lines.get(1).startsWith("walmigrate: ") && !lines.get(1).startsWith("walmigrate: following "), err);
        }
    }
}
