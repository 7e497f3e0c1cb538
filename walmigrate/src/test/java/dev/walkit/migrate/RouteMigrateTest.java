package dev.walkit.migrate;

import dev.walkit.testdata.EtcdCluster;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.walkit.migrate.FollowMigrateTest.bs;
import static dev.walkit.migrate.FollowMigrateTest.client;
import static dev.walkit.migrate.FollowMigrateTest.served;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --route}: a hosted control plane's layout, with real etcds: the events to a second etcd, the rest to the main
 * one; each shard copied and verified on its own, at one revision of the source.
 */
class RouteMigrateTest {
    @TempDir
    Path dir;

    @Test
    void eventsGoToTheirShardAndTheRestToTheMainOneEachVerified() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster main = EtcdCluster.start(dir.resolve("main"), 1);
             EtcdCluster events = EtcdCluster.start(dir.resolve("events"), 1);
             Client s = client(src.endpoints()); Client m = client(main.endpoints()); Client e = client(events.endpoints())) {
            KV kv = s.getKVClient();
            long lease = s.getLeaseClient().grant(900).get().getID();
            for (int i = 0; i < 50; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("cm-" + i)).get();
            for (int i = 0; i < 80; i++) kv.put(bs("/registry/events/ns/e-" + i), bs("ev-" + i), PutOption.builder().withLeaseId(lease).build()).get();
            kv.put(bs("/registry/eventsx/not-an-event"), bs("x")).get(); // shares the first letters, not the prefix
            WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", src.endpoints(), "--endpoints", main.endpoints(),
                    "--route", "/registry/events/=" + events.endpoints(), "-w", "json");
            assertEquals(0, r.exit(), r.out() + r.err());
            assertEquals(2, r.out().lines().count(), "one report a shard: " + r.out());
            Map<String, String> all = served(s, "/registry/", false);
            Map<String, String> wantEvents = new TreeMap<>(all);
            wantEvents.keySet().removeIf(k -> !k.startsWith("/registry/events/"));
            Map<String, String> wantMain = new TreeMap<>(all);
            wantMain.keySet().removeIf(k -> k.startsWith("/registry/events/"));
            assertEquals(80, wantEvents.size());
            assertEquals(wantEvents, served(e, "/registry/", false), "the events shard holds the events, their leases' TTLs, nothing else");
            assertEquals(wantMain, served(m, "/registry/", false), "the main one holds the rest, /registry/eventsx/ too");

            WalMigrateTest.Run v = WalMigrateTest.run("verify", "--db", snapshot(src).toString(), "--endpoints", main.endpoints(),
                    "--route", "/events#" + events.endpoints());
            assertEquals(0, v.exit(), "each shard equal to its part of the source (kube-apiserver's override form): " + v.out() + v.err());
            m.getKVClient().put(bs("/registry/events/ns/stray"), bs("x")).get();
            WalMigrateTest.Run stray = WalMigrateTest.run("verify", "--db", snapshot(src).toString(), "--endpoints", main.endpoints(),
                    "--route", "/registry/events/=" + events.endpoints());
            assertEquals(1, stray.exit(), "an event in the main shard is a difference: " + stray.out() + stray.err());
        }
    }

    @Test
    void aLiveEtcdFollowedIntoTwoShardsEndsWithEachHoldingItsPartAtTheCutOver() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster main = EtcdCluster.start(dir.resolve("main"), 1);
             EtcdCluster events = EtcdCluster.start(dir.resolve("events"), 1);
             Client s = client(src.endpoints()); Client m = client(main.endpoints()); Client e = client(events.endpoints())) {
            KV kv = s.getKVClient();
            for (int i = 0; i < 30; i++) kv.put(bs("/registry/pods/ns/p-" + i), bs("p0-" + i)).get();
            for (int i = 0; i < 30; i++) kv.put(bs("/registry/events/ns/e-" + i), bs("e0-" + i)).get();
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = FollowMigrateTest.follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", main.endpoints(),
                    "--route", "/events#" + events.endpoints(), "--prefix", "/registry/", "--follow", "--cutover", cut.toString(), "-w", "json");
            // Both shards following: two lines.
            dev.walkit.testdata.Await.until("both shards to follow", () -> run.err().toString().split("walmigrate: following ", -1).length - 1 >= 2,
                    () -> run.err().toString());
            long lease = s.getLeaseClient().grant(900).get().getID();
            for (int n = 0; n < 300; n++) {
                int i = n % 40;
                switch (n % 4) {
                    case 0 -> kv.put(bs("/registry/pods/ns/p-" + i), bs("p" + n)).get();
                    case 1 -> kv.put(bs("/registry/events/ns/e-" + i), bs("e" + n), PutOption.builder().withLeaseId(lease).build()).get();
                    case 2 -> kv.delete(bs("/registry/events/ns/e-" + (i + 1))).get();
                    default -> kv.txn().Then(io.etcd.jetcd.op.Op.put(bs("/registry/pods/ns/q-" + n), bs("both"), PutOption.DEFAULT),
                            io.etcd.jetcd.op.Op.put(bs("/registry/events/ns/q-" + n), bs("both"), PutOption.DEFAULT)).commit().get(); // two shards, one txn
                }
            }
            java.nio.file.Files.createFile(cut);
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.out() + r.err());
            assertEquals(2, r.out().lines().count(), "one report a shard: " + r.out());
            for (String line : r.out().lines().toList()) {
                com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
                assertTrue(j.get("equal").asBoolean(), line);
                assertTrue(j.get("transactions").asLong() > 50, line);
                assertEquals(75, j.get("split_transactions").asLong(), "each of the 75 transactions that wrote both shards, split: " + line);
            }
            Map<String, String> all = served(s, "/registry/", false);
            Map<String, String> wantEvents = new TreeMap<>(all);
            wantEvents.keySet().removeIf(k -> !k.startsWith("/registry/events/"));
            Map<String, String> wantMain = new TreeMap<>(all);
            wantMain.keySet().removeIf(k -> k.startsWith("/registry/events/"));
            assertEquals(wantEvents, served(e, "/registry/", false), "the events shard: exactly the source's events (key, value, lease)");
            assertEquals(wantMain, served(m, "/registry/", false), "the main shard: exactly the rest");
            assertEquals(0, m.getKVClient().get(bs(FollowMarker.DEFAULT_KEY)).get().getCount() + e.getKVClient().get(bs(FollowMarker.DEFAULT_KEY)).get().getCount(),
                    "both markers removed at the cut-over");
        }
    }

    /** Each shard's part of what a store serves: the events, or the rest. */
    private static Map<String, String> part(Map<String, String> all, boolean events) {
        Map<String, String> m = new TreeMap<>(all);
        m.keySet().removeIf(k -> k.startsWith("/registry/events/") != events);
        return m;
    }

    @Test
    void theRealKineKeepsWritingWhileItIsFollowedIntoTwoShards() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.walkit.testdata.KineServer.available(), "the real kine is not at " + dev.walkit.testdata.KineServer.binary());
        Path data = java.nio.file.Files.createDirectories(dir.resolve("k3s"));
        Path db = data.resolve("state.db");
        try (dev.walkit.testdata.KineServer kine = dev.walkit.testdata.KineServer.start(db, dir.resolve("kine.log"));
             EtcdCluster main = EtcdCluster.start(dir.resolve("main"), 1); EtcdCluster events = EtcdCluster.start(dir.resolve("events"), 1);
             Client k = client("http://" + kine.endpoint()); Client m = client(main.endpoints()); Client e = client(events.endpoints())) {
            KV kv = k.getKVClient();
            for (int i = 0; i < 100; i++) assertTrue(FollowMigrateTest.kineTxn(kv, "/registry/configmaps/ns/cm-" + i, 0, "v0-" + i, 0));
            long ttl = k.getLeaseClient().grant(1200).get().getID(); // kine: the lease ID is the TTL
            for (int i = 0; i < 50; i++) assertTrue(FollowMigrateTest.kineTxn(kv, "/registry/events/ns/e-" + i, 0, "e0-" + i, ttl));
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = FollowMigrateTest.follow("kine", "--sqlite", db.toString(), "--endpoints", main.endpoints(),
                    "--route", "/registry/events/=" + events.endpoints(), "--follow", "--cutover", cut.toString(), "-w", "json");
            dev.walkit.testdata.Await.until("both shards to follow", () -> run.err().toString().split("walmigrate: following ", -1).length - 1 >= 2,
                    () -> run.err().toString());
            java.util.Random rnd = new java.util.Random(5);
            for (int n = 0; n < 200; n++) {
                boolean event = n % 2 == 0;
                String key = event ? "/registry/events/ns/e-" + rnd.nextInt(70) : "/registry/configmaps/ns/cm-" + rnd.nextInt(120);
                long mod = FollowMigrateTest.mod(kv, key);
                if (n % 5 == 4 && mod != 0) FollowMigrateTest.kineTxn(kv, key, mod, null, 0);
                else FollowMigrateTest.kineTxn(kv, key, mod, "v" + n, event ? ttl : 0);
            }
            Map<String, String> before = served(k, "/registry/", true);
            java.nio.file.Files.createFile(cut);
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.out() + r.err());
            assertEquals(part(before, true), served(e, "/registry/", false), "the events shard: kine's events (key, value, lease's TTL)");
            assertEquals(part(before, false), served(m, "/registry/", false), "the main shard: the rest");
        }
    }

    @Test
    void aLiveWalAppendedToIsFollowedIntoTwoShards() throws Exception {
        try (EtcdCluster main = EtcdCluster.start(dir.resolve("main"), 1); EtcdCluster events = EtcdCluster.start(dir.resolve("events"), 1);
             Client m = client(main.endpoints()); Client e = client(events.endpoints());
             dev.walkit.testdata.LiveWal wal = dev.walkit.testdata.LiveWal.create(dir.resolve("wal"))) {
            for (int i = 0; i < 100; i++) wal.put("/registry/configmaps/ns/cm-" + i, "v0-" + i, 0);
            for (int i = 0; i < 50; i++) wal.put("/registry/events/ns/e-" + i, "e0-" + i, 0);
            Path cut = dir.resolve("cutover");
            FollowMigrateTest.Following run = FollowMigrateTest.follow("wal", "--wal", wal.path().toString(), "--endpoints", main.endpoints(),
                    "--route", "/events#" + events.endpoints(), "--follow", "--cutover", cut.toString(), "-w", "json");
            dev.walkit.testdata.Await.until("both shards to follow", () -> run.err().toString().split("walmigrate: following ", -1).length - 1 >= 2,
                    () -> run.err().toString());
            for (int n = 0; n < 200; n++) {
                switch (n % 4) {
                    case 0 -> wal.put("/registry/configmaps/ns/cm-" + (n % 120), "v" + n, 0);
                    case 1 -> wal.put("/registry/events/ns/e-" + (n % 70), "e" + n, 0);
                    case 2 -> wal.delete("/registry/events/ns/e-" + (n % 50));
                    default -> wal.txn(List.of(dev.walkit.testdata.LiveWal.Op.put("/registry/pods/ns/p-" + n, "pod", 0),
                            dev.walkit.testdata.LiveWal.Op.put("/registry/events/ns/p-" + n, "started", 0)));
                }
            }
            java.nio.file.Files.createFile(cut);
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.out() + r.err());
            Map<String, String> want = new TreeMap<>();
            for (Map.Entry<String, dev.walkit.testdata.LiveWal.Held> x : wal.live().entrySet()) {
                want.put(x.getKey(), new String(x.getValue().value(), java.nio.charset.StandardCharsets.UTF_8) + " ttl=0");
            }
            assertEquals(part(want, true), served(e, "/registry/", false), "the events shard: the WAL's events");
            assertEquals(part(want, false), served(m, "/registry/", false), "the main shard: the rest");
        }
    }

    private Path snapshot(EtcdCluster src) throws Exception {
        Path db = dir.resolve("snapshot-" + System.nanoTime() + ".db");
        dev.walkit.testdata.Etcdctl.run(src.endpoints(), null, "snapshot", "save", db.toString());
        return db;
    }

    @Test
    void aDamagedSourceIsRefusedOnceNotOnceAShard() {
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", dev.walkit.format.Fixtures.path("sample/wal").toString(), "--endpoints", "http://127.0.0.1:1",
                "--route", "/registry/events/=http://127.0.0.1:2", "--dry-run");
        assertEquals(3, r.exit(), r.err());
        assertEquals(1, r.err().lines().count(), "the source's refusal, once: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void badRoutesAreOneLineAndExit2() {
        String[][] bad = {{"--route", "nothing-here"}, {"--route", "/a/="}, {"--route", "/a/=http://127.0.0.1:1", "--route", "/a/b/=http://127.0.0.1:2"},
                {"--route", "#http://127.0.0.1:1"}, {"--route", "/a/=http://127.0.0.1:1", "--out-wal", "/nonexistent-dir-for-a-test"},
                {"--route", "/a/=http://127.0.0.1:1", "--route", "/b/=http://127.0.0.1:1", "--follow"}};
        for (String[] b : bad) {
            String[] args = new String[b.length + 4];
            args[0] = "wal";
            args[1] = "--wal";
            args[2] = dev.walkit.format.Fixtures.path("vectors/small/wal").toString();
            args[3] = "--endpoints=http://127.0.0.1:1";
            System.arraycopy(b, 0, args, 4, b.length);
            WalMigrateTest.Run r = WalMigrateTest.run(args);
            assertEquals(2, r.exit(), String.join(" ", b) + ": " + r.err());
            assertEquals(1, r.err().lines().count(), "one line: " + r.err());
            assertTrue(r.err().startsWith("walmigrate: --route") || r.err().contains("--route"), r.err());
        }
    }
}
