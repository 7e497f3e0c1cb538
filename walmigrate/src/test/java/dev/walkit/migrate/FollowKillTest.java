package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.testdata.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
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
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), WalMigrate.class.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(out.resolveSibling(out.getFileName() + ".err").toFile()).start();
    }

    /** Every event under {@code prefix} from {@code from} on, until none comes for 400 ms. */
    private static List<WatchEvent> history(Client c, String prefix, long from) throws Exception {
        List<WatchEvent> events = new CopyOnWriteArrayList<>();
        Watch.Watcher w = c.getWatchClient().watch(bs(prefix), WatchOption.builder().isPrefix(true).withRevision(from).build(),
                r -> events.addAll(r.getEvents()));
        try {
            int seen = -1;
            while (events.size() != seen) {
                seen = events.size();
                Thread.sleep(400);
            }
        } finally {
            w.close();
        }
        return events;
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
                Process first = start(args, dir.resolve("first-" + trial));
                Thread.sleep(300 + rnd.nextInt(2700)); // in the JVM's start, the copy, or the follow
                first.destroyForcibly().waitFor();
                boolean marked = !t.getKVClient().get(bs(marker)).get().getKvs().isEmpty();
                Path out = dir.resolve("second-" + trial);
                Process second = start(args, out);
                Thread.sleep(1500);
                writing.set(false);
                writer.join();
                Files.createFile(cut);
                assertTrue(second.waitFor(120, TimeUnit.SECONDS), "the resumed run ends at the cut-over");
                String err = Files.readString(out.resolveSibling(out.getFileName() + ".err"));
                assertEquals(0, second.exitValue(), Files.readString(out) + err);
                JsonNode j = new ObjectMapper().readTree(Files.readString(out));
                assertTrue(j.get("equal").asBoolean(), j.toString());
                if (marked) {
                    assertTrue(j.get("resumed").isTextual(), "the report says where it resumed: " + j);
                    resumedAt.add(j.get("resumed").asText());
                }
                assertEquals(served(s, prefix, false), served(t, prefix, false), "trial " + trial);

                // Every source revision after the copy's, applied once, in order: the marker's history in the target.
                List<Long> applied = new ArrayList<>();
                long copy = -1;
                for (WatchEvent e : history(t, marker, targetFrom)) {
                    if (!e.getKeyValue().getKey().toString(StandardCharsets.UTF_8).equals(marker) || e.getEventType() != WatchEvent.EventType.PUT) continue;
                    FollowMarker m = FollowMarker.decode(e.getKeyValue().getValue().getBytes());
                    assertNotNull(m);
                    if (m.phase() == FollowMarker.Phase.FOLLOW) {
                        if (copy < 0) copy = m.revision();
                        else applied.add(m.revision());
                    }
                }
                assertTrue(copy > 0, "the copy finished once");
                long cutAt = j.get("cutover_revision").asLong();
                TreeSet<Long> source = new TreeSet<>();
                for (WatchEvent e : history(s, prefix, copy + 1)) {
                    if (e.getKeyValue().getModRevision() <= cutAt) source.add(e.getKeyValue().getModRevision());
                }
                assertEquals(new ArrayList<>(source), applied, "trial " + trial + ": each source transaction after revision " + copy + " once, in order");

                // No key written twice with the same value: a repeat would show as two puts of one value in a row.
                Map<String, String> lastPut = new HashMap<>();
                for (WatchEvent e : history(t, prefix, targetFrom)) {
                    String k = e.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
                    if (e.getEventType() == WatchEvent.EventType.DELETE) {
                        lastPut.remove(k);
                        continue;
                    }
                    String v = e.getKeyValue().getValue().toString(StandardCharsets.UTF_8);
                    assertTrue(!v.equals(lastPut.put(k, v)), "trial " + trial + ": " + k + " = " + v + " written twice");
                }
                assertEquals(0, t.getKVClient().get(bs(marker), GetOption.builder().isPrefix(true).build()).get().getCount(), "marker removed");
            }
            assertTrue(resumedAt.size() >= TRIALS / 2, "most kills came after the marker: " + resumedAt);
            System.out.println("FollowKillTest: resumed " + resumedAt);
        }
    }

    @Test
    void aCutOverBySignalThatFailsExitsWithTheFailuresCodeInOneLine() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints())) {
            for (int i = 0; i < 20; i++) s.getKVClient().put(bs("/t/k-" + i), bs("v")).get();
            Path out = dir.resolve("follow");
            Process p = start(List.of("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--prefix", "/t/", "--follow"), out);
            Thread.sleep(3000); // copied, following
            dst.kill(0); // the target is gone: the cut-over's check cannot reach it
            p.destroy(); // SIGTERM: the cut-over
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String err = Files.readString(out.resolveSibling(out.getFileName() + ".err"));
            assertEquals(5, p.exitValue(), "the failure's exit code (the target), not 70: " + err);
            assertEquals(1, err.lines().filter(l -> !l.isBlank()).count(), err);
            assertTrue(err.startsWith("walmigrate: "), err);
        }
    }
}
