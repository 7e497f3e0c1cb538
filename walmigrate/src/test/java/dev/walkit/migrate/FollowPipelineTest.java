package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.EtcdCluster;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.walkit.migrate.FollowMigrateTest.bs;
import static dev.walkit.migrate.FollowMigrateTest.client;
import static dev.walkit.migrate.FollowMigrateTest.follow;
import static dev.walkit.migrate.FollowMigrateTest.json;
import static dev.walkit.migrate.FollowMigrateTest.served;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pipelined follow with real etcds: a burst of the source's writes applied with many follow transactions in flight,
 * each still only after the one before it; a transaction that fails (a conflict) stops the pipeline, which goes on from
 * the target's marker: nothing applied twice, nothing skipped, the conflict never overwritten.
 */
class FollowPipelineTest {
    @TempDir
    Path dir;

    /** {@code n} puts sent at once (each its own revision), answered. */
    private static void burst(KV kv, String prefix, int from, int n) throws Exception {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = from; i < from + n; i++) sent.add(kv.put(bs(prefix + (i % 700)), bs("v" + i)));
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aBurstIsAppliedWithManyInFlightAndTheTargetEndsEqual() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            for (int i = 0; i < 100; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v0")).get();
            long start = kv.get(bs("/registry/")).get().getHeader().getRevision();
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--pipeline", "16", "--cutover", cut.toString(), "-w", "json");
            run.started();
            burst(kv, "/registry/configmaps/ns/cm-", 0, 3000);
            long end = kv.get(bs("/registry/")).get().getHeader().getRevision();
            JsonNode j = FollowMigrateTest.cutOver(cut, run, 2999);
            assertEquals(end - start, j.get("transactions").asLong(), "every source transaction once: " + j);
            assertEquals(16, j.get("pipeline").asInt());
            assertTrue(j.get("pipeline_most_in_flight").asInt() > 1, "more than one in flight under a burst: " + j);
            assertEquals(0, j.get("pipeline_restarts").asLong(), "nothing failed: " + j);
            assertEquals(64, j.get("coalesce").asInt());
            assertTrue(j.get("target_transactions").asLong() < j.get("transactions").asLong(),
                    "a burst read at once goes in fewer target transactions: " + j);
            assertEquals(served(s, "/registry/", false), served(t, "/registry/", false));
        }
    }

    @Test
    void withCoalesceOneEachSourceTransactionIsOneTargetTransaction() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            kv.put(bs("/registry/configmaps/ns/cm-0"), bs("v0")).get();
            long start = kv.get(bs("/registry/")).get().getHeader().getRevision();
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--coalesce", "1", "--cutover", cut.toString(), "-w", "json");
            run.started();
            burst(kv, "/registry/configmaps/ns/cm-", 0, 600);
            long end = kv.get(bs("/registry/")).get().getHeader().getRevision();
            JsonNode j = FollowMigrateTest.cutOver(cut, run, 599);
            assertEquals(end - start, j.get("transactions").asLong(), j.toString());
            assertEquals(1, j.get("coalesce").asInt());
            assertEquals(j.get("transactions").asLong(), j.get("target_transactions").asLong(), "none coalesced: " + j);
            assertEquals(served(s, "/registry/", false), served(t, "/registry/", false));
        }
    }

    /**
     * A write now and then, each awaited at the target before the next: the report's lag ends when the target answered,
     * so no transaction's lag is longer than the test took from sending the write to seeing it there. Taken when the
     * follow took the answer (at its next poll), the last write's lag was Follow's 100 ms poll and more, where the test
     * saw each write in a few ms.
     */
    @Test
    void theReportsLagEndsWhenTheTargetAnswered() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--cutover", cut.toString(), "-w", "json");
            run.started();
            double seenMs = 0;
            for (int i = 0; i < 7; i++) {
                String v = "v" + i;
                long t0 = System.nanoTime();
                kv.put(bs("/registry/now-and-then"), bs(v)).get();
                Await.until("the target to hold " + v, () -> v.equals(TlsTest.value(t, "/registry/now-and-then")));
                seenMs = Math.max(seenMs, (System.nanoTime() - t0) / 1e6);
            }
            JsonNode j = FollowMigrateTest.cutOver(cut, run, 6);
            assertEquals(7, j.get("transactions").asLong(), j.toString());
            // p99 of seven: the longest. The slack covers the answer's way back to the follow after the target applied it.
            assertTrue(j.get("lag_ms_p99").asDouble() < seenMs + 50, "the longest lag within the longest the test took (" + seenMs + " ms): " + j);
        }
    }

    /**
     * A run killed after one target transaction of its group {r1} and before its marker moved: the target holds r1's
     * change, not r2's, the marker says r0. The resumed run reads r1 and r2 at once and sends them as one group, whose
     * compare fails on r1's key: r1 is found applied on its own and not applied again, r2 is applied; no conflict. (The
     * whole group's check took r1's key for a conflict.)
     */
    @Test
    void aSourceTransactionAppliedByAnEarlierGroupingIsNotAConflictWhenRegrouped() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            kv.put(bs("/registry/a"), bs("a0")).get();
            long r0 = kv.put(bs("/registry/b"), bs("b0")).get().getHeader().getRevision();
            long r1 = kv.put(bs("/registry/a"), bs("a1")).get().getHeader().getRevision();
            long r2 = kv.put(bs("/registry/b"), bs("b1")).get().getHeader().getRevision();
            assertEquals(r0 + 2, r2);
            KV target = t.getKVClient();
            target.put(bs("/registry/a"), bs("a1")).get(); // r1 applied by the killed run
            target.put(bs("/registry/b"), bs("b0")).get(); // r2 not
            target.put(bs(FollowMarker.DEFAULT_KEY), io.etcd.jetcd.ByteSequence.from(
                    new FollowMarker("etcd " + src.endpoints() + " (followed)", FollowMarker.Phase.FOLLOW, r0).encode())).get();
            WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--until-revision", Long.toString(r2), "-w", "json");
            assertEquals(0, r.exit(), r.out() + r.err());
            JsonNode j = json(r);
            assertEquals("after revision " + r0, j.get("resumed").asText(), r.out());
            assertEquals(0, j.get("follow_conflicts").asLong(), "r1 found applied, not a conflict: " + r.out());
            assertEquals(2, j.get("transactions").asLong(), r.out());
            assertEquals(1, j.get("target_transactions").asLong(), "r1 and r2 sent as one group: " + r.out());
            assertEquals(1, j.get("pipeline_restarts").asLong(), "the group's compare failed on r1's key: " + r.out());
            assertTrue(j.get("equal").asBoolean(), r.out());
            assertEquals(served(s, "/registry/", false), served(t, "/registry/", false));
        }
    }

    @Test
    void aConflictInTheMiddleOfABurstStopsThePipelineWhichGoesOnFromTheMarker() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            for (int i = 0; i < 100; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v0")).get();
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--pipeline", "32", "--cutover", cut.toString(), "-w", "json");
            run.started();
            // Someone else writes one key of the prefix in the target; the source then changes it amid a burst.
            t.getKVClient().put(bs("/registry/theirs"), bs("theirs")).get();
            burst(kv, "/registry/configmaps/ns/cm-", 0, 1000);
            kv.put(bs("/registry/theirs"), bs("ours")).get();
            burst(kv, "/registry/configmaps/ns/cm-", 1000, 1000);
            Files.createFile(cut);
            WalMigrateTest.Run r = run.get(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(1, r.exit(), "a conflict: exit 1: " + r.out() + r.err());
            JsonNode j = json(r);
            assertEquals(1, j.get("follow_conflicts").asLong(), r.out());
            assertEquals("/registry/theirs", j.get("follow_conflict_keys").get(0).asText());
            assertTrue(j.get("pipeline_restarts").asLong() >= 1, "the failed transaction stopped the pipeline: " + r.out());
            assertEquals(2001, j.get("transactions").asLong(), "every source transaction once, the conflict's too: " + r.out());
            assertEquals("theirs", t.getKVClient().get(bs("/registry/theirs")).get().getKvs().get(0).getValue().toString(StandardCharsets.UTF_8),
                    "never overwritten");
            Map<String, String> want = served(s, "/registry/", false);
            Map<String, String> got = served(t, "/registry/", false);
            want.remove("/registry/theirs");
            got.remove("/registry/theirs");
            assertEquals(want, got, "everything else as the source has it: nothing skipped, nothing applied twice");
            assertEquals(1, j.get("different_count").asLong(), r.out());
            assertEquals(1, t.getKVClient().get(bs(FollowMarker.DEFAULT_KEY), GetOption.DEFAULT).get().getCount(), "the marker stays while the target differs");
        }
    }
}
