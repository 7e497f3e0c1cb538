package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.KineServer;
import dev.walkit.testdata.LiveWal;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code walmigrate … --follow} with real parts: a source that keeps being written (the real kine, a live etcd, a WAL
 * that a writer appends to and compacts by rename) while the follow runs into a real etcd; after the cut-over the
 * target serves what the source serves, key for key, value for value, lease for lease.
 */
class FollowMigrateTest {
    @TempDir
    Path dir;

    static Client client(String endpoints) {
        return Client.builder().endpoints(endpoints.split(",")).build();
    }

    static ByteSequence bs(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /**
     * What a store serves under {@code prefix}: key (quoted as the tools print it: any byte, UTF-8 or not, kept) → value
     * and the lease's granted TTL (kine's lease ID is its TTL).
     */
    static Map<String, String> served(Client c, String prefix, boolean kineLeases) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (KeyValue kv : c.getKVClient().get(bs(prefix), GetOption.builder().isPrefix(true).build()).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getKvs()) {
            long ttl = kv.getLease() == 0 ? 0 : kineLeases ? kv.getLease()
                    : c.getLeaseClient().timeToLive(kv.getLease(), LeaseOption.DEFAULT).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getGrantedTTL();
            m.put(dev.walkit.cli.KeyText.quote(kv.getKey().getBytes()), dev.walkit.cli.KeyText.quote(kv.getValue().getBytes()) + " ttl=" + ttl);
        }
        return m;
    }

    /** A follow running in this JVM: its end, and its stderr as it is printed. */
    record Following(CompletableFuture<WalMigrateTest.Run> run, StringWriter err) {
        /** Waits until the copy is done and the follow has begun (its line on stderr); fails at once if it ended. */
        Following started() {
            Await.printed("the follow to begin", err, "walmigrate: following ", run);
            return this;
        }

        WalMigrateTest.Run get(long timeout, TimeUnit unit) throws Exception {
            return run.get(timeout, unit);
        }
    }

    /** The follow, run in this JVM as the command line runs it, until {@code cutover} appears. */
    static Following follow(String... args) {
        StringWriter err = new StringWriter();
        return new Following(CompletableFuture.supplyAsync(() -> WalMigrateTest.run(new StringWriter(), err, args)), err);
    }

    static JsonNode json(WalMigrateTest.Run r) throws Exception {
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void aLiveEtcdFollowedIntoAnotherEndsEqualAtTheCutOver() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            for (int i = 0; i < 300; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v0-" + i)).get();
            long events = s.getLeaseClient().grant(900).get().getID();
            for (int i = 0; i < 5; i++) kv.put(bs("/registry/events/ns/e-" + i), bs("ev-" + i), PutOption.builder().withLeaseId(events).build()).get();
            kv.put(bs("/other/not-migrated"), bs("x")).get();
            Path cut = dir.resolve("cutover");
            Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--cutover", cut.toString(), "-w", "json");
            run.started();
            Random rnd = new Random(7);
            long revoked = s.getLeaseClient().grant(600).get().getID();
            for (int i = 0; i < 4; i++) kv.put(bs("/registry/leases/ns/l-" + i), bs("hb"), PutOption.builder().withLeaseId(revoked).build()).get();
            long kept = s.getLeaseClient().grant(1200).get().getID();
            for (int n = 0; n < 300; n++) {
                int i = rnd.nextInt(400);
                switch (n % 6) {
                    case 0, 1 -> kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v" + n + "-" + i)).get();
                    case 2 -> kv.delete(bs("/registry/configmaps/ns/cm-" + i)).get();
                    case 3 -> kv.txn().Then(Op.put(bs("/registry/pods/ns/p-" + n), bs("pod-" + n), PutOption.DEFAULT),
                            Op.put(bs("/registry/pods/ns/q-" + n), bs("pod-" + n), PutOption.builder().withLeaseId(kept).build()),
                            Op.delete(bs("/registry/configmaps/ns/cm-" + i), DeleteOption.DEFAULT)).commit().get();
                    case 4 -> kv.txn().If(new Cmp(bs("/registry/configmaps/ns/cm-" + i), Cmp.Op.EQUAL, CmpTarget.version(0)))
                            .Then(Op.put(bs("/registry/configmaps/ns/cm-" + i), bs("made-" + n), PutOption.DEFAULT)).commit().get();
                    default -> kv.put(bs("/other/k-" + n), bs("not migrated")).get();
                }
                if (n == 150) s.getLeaseClient().revoke(revoked).get(); // its keys deleted, in one revision
                if (n % 50 == 0) { // keys that are not UTF-8, made, changed and deleted
                    ByteSequence raw = ByteSequence.from(new byte[] {'/', 'r', 'e', 'g', 'i', 's', 't', 'r', 'y', '/', (byte) 0xff, 0, (byte) (0x80 + n / 50)});
                    kv.put(raw, ByteSequence.from(new byte[] {(byte) 0xfe, (byte) n})).get();
                    if (n % 100 == 0) kv.delete(raw).get();
                }
            }
            cutOver(cut, run, 200);
            assertEquals(served(s, "/registry/", false), served(t, "/registry/", false), "keys, values, leases' TTLs");
            assertTrue(served(t, "/registry/", false).containsKey("/registry/\\xff\\x00\\x81"), "a key that is not UTF-8, byte for byte");
            assertEquals(List.of(), t.getKVClient().get(bs(FollowMarker.DEFAULT_KEY), GetOption.builder().isPrefix(true).build()).get().getKvs(),
                    "the marker is removed at the cut-over");
            assertEquals(0, t.getKVClient().get(bs("/other/"), GetOption.builder().isPrefix(true).build()).get().getCount(), "only the prefix");
        }
    }

    /**
     * The cut-over: the file created, the follow's end awaited; it must end at exit 0, the target equal to the source,
     * no conflict, after more than {@code minTransactions} transactions followed.
     */
    static JsonNode cutOver(Path cut, Following run, long minTransactions) throws Exception {
        Files.createFile(cut);
        WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(0, r.exit(), r.out() + r.err());
        JsonNode j = json(r);
        assertTrue(j.get("transactions").asLong() > minTransactions, r.out());
        assertTrue(j.get("equal").asBoolean(), r.out());
        assertEquals(0, j.get("follow_conflicts").asLong(), "no conflict (the target's leases kept alive while the source held their keys): " + r.out());
        return j;
    }

    /** kine's own shapes: a create compares mod = 0, an update or delete the revision last read. */
    static boolean kineTxn(KV kv, String key, long mod, String value, long lease) throws Exception {
        Op op = value == null ? Op.delete(bs(key), DeleteOption.DEFAULT)
                : Op.put(bs(key), bs(value), lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build());
        return kv.txn().If(new Cmp(bs(key), Cmp.Op.EQUAL, CmpTarget.modRevision(mod))).Then(op).Else(Op.get(bs(key), GetOption.DEFAULT))
                .commit().get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).isSucceeded();
    }

    static long mod(KV kv, String key) throws Exception {
        List<KeyValue> kvs = kv.get(bs(key)).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? 0 : kvs.get(0).getModRevision();
    }

    @Test
    void theRealKineKeepsWritingWhileItIsFollowedIntoEtcd() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path data = Files.createDirectories(dir.resolve("k3s"));
        Path db = data.resolve("state.db");
        try (KineServer kine = KineServer.start(db, dir.resolve("kine.log")); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client k = client("http://" + kine.endpoint()); Client t = client(dst.endpoints())) {
            KV kv = k.getKVClient();
            for (int i = 0; i < 200; i++) assertTrue(kineTxn(kv, "/registry/configmaps/ns/cm-" + i, 0, "v0-" + i, 0));
            long shortTtl = k.getLeaseClient().grant(2).get().getID(); // kine: the lease ID is the TTL
            long longTtl = k.getLeaseClient().grant(1200).get().getID();
            for (int i = 0; i < 3; i++) assertTrue(kineTxn(kv, "/registry/events/ns/gone-" + i, 0, "expires", shortTtl));
            Path cut = dir.resolve("cutover");
            Following run = follow("kine", "--sqlite", db.toString(), "--endpoints", dst.endpoints(),
                    "--follow", "--cutover", cut.toString(), "-w", "json");
            run.started();
            Random rnd = new Random(11);
            for (int n = 0; n < 240; n++) {
                String key = "/registry/configmaps/ns/cm-" + rnd.nextInt(260);
                long m = mod(kv, key);
                switch (n % 4) {
                    case 0, 1 -> kineTxn(kv, key, m, "v" + n, 0); // create (m = 0) or update
                    case 2 -> {
                        if (m != 0) kineTxn(kv, key, m, null, 0);
                    }
                    default -> kineTxn(kv, "/registry/leases/ns/n-" + n, 0, "hb-" + n, longTtl);
                }
                if (n == 30) for (int i = 0; i < 2; i++) kineTxn(kv, "/registry/events/ns/short-" + i, 0, "expires", shortTtl);
            }
            // kine expires the short-lived keys by writing delete rows: followed as deletes.
            Await.until("kine to expire its short leases' keys", () -> served(k, "/registry/events/", true).isEmpty(),
                    () -> Await.now(() -> served(k, "/registry/events/", true)));
            Map<String, String> before = served(k, "/registry/", true);
            cutOver(cut, run, 150);
            assertEquals(before, served(t, "/registry/", false), "what kine serves at the cut-over: keys, values, leases' TTLs");
        }
    }

    @Test
    void aLiveWalAppendedToAndCompactedByRenameIsFollowed() throws Exception {
        try (EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1); Client t = client(dst.endpoints());
             LiveWal wal = LiveWal.create(dir.resolve("wal"))) {
            for (int i = 0; i < 200; i++) wal.put("/registry/configmaps/ns/cm-" + i, "v0-" + i, 0);
            for (int i = 0; i < 4; i++) wal.put("/registry/leases/ns/n-" + i, "hb", 77);
            Path cut = dir.resolve("cutover");
            Following run = follow("wal", "--wal", wal.path().toString(), "--endpoints", dst.endpoints(),
                    "--lease-ttl", "900", "--follow", "--cutover", cut.toString(), "-w", "json");
            run.started();
            Random rnd = new Random(3);
            for (int n = 0; n < 300; n++) {
                String key = "/registry/configmaps/ns/cm-" + rnd.nextInt(260);
                switch (n % 5) {
                    case 0, 1 -> wal.put(key, "v" + n, 0);
                    case 2 -> wal.delete(key);
                    case 3 -> wal.txn(List.of(LiveWal.Op.put("/registry/pods/ns/p-" + n, "pod", 0), LiveWal.Op.put("/registry/pods/ns/q-" + n, "pod", 88),
                            LiveWal.Op.delete(key)));
                    default -> wal.put("/registry/leases/ns/n-" + (n % 9), "hb-" + n, 77);
                }
                if (n == 150) wal.compact();
                if (n % 10 == 0) Thread.sleep(5);
            }
            cutOver(cut, run, 200);
            Map<String, String> want = new TreeMap<>();
            Map<Long, List<String>> bySourceLease = new HashMap<>();
            for (Map.Entry<String, LiveWal.Held> e : wal.live().entrySet()) {
                want.put(e.getKey(), new String(e.getValue().value(), StandardCharsets.UTF_8) + " ttl=" + (e.getValue().lease() == 0 ? 0 : 900));
                if (e.getValue().lease() != 0) bySourceLease.computeIfAbsent(e.getValue().lease(), x -> new ArrayList<>()).add(e.getKey());
            }
            assertEquals(want, served(t, "/registry/", false), "keys, values, and a lease of --lease-ttl where the WAL had one");
            for (List<String> keys : bySourceLease.values()) { // one target lease per source lease
                long first = t.getKVClient().get(bs(keys.get(0))).get().getKvs().get(0).getLease();
                for (String key : keys) assertEquals(first, t.getKVClient().get(bs(key)).get().getKvs().get(0).getLease(), key);
            }
        }
    }

    @Test
    void untilRevisionStopsAtThatRevisionWhileTheSourceGoesOn() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            for (int i = 0; i < 50; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v0")).get();
            long at = kv.get(bs("/registry/configmaps/ns/cm-0")).get().getHeader().getRevision();
            long until = at + 40;
            Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/registry/", "--follow", "--until-revision", Long.toString(until));
            for (int n = 0; n < 100; n++) kv.put(bs("/registry/configmaps/ns/cm-" + (n % 60)), bs("v" + n)).get();
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            // Whether the copy came before --until-revision or after it (the source already past it: the copy is then of
            // the state there), the target ends at that revision.
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("cut over at revision " + until + " (--until-revision " + until + " reached)"), r.out());
            Map<String, String> atUntil = new TreeMap<>();
            for (KeyValue x : kv.get(bs("/registry/"), GetOption.builder().isPrefix(true).withRevision(until).build()).get().getKvs()) {
                atUntil.put(dev.walkit.cli.KeyText.quote(x.getKey().getBytes()), dev.walkit.cli.KeyText.quote(x.getValue().getBytes()) + " ttl=0");
            }
            assertEquals(atUntil, served(t, "/registry/", false), "the source as it stood at --until-revision");
            assertTrue(!atUntil.equals(served(s, "/registry/", false)), "the source went on past it");
        }
    }

    @Test
    void kinesLiveDatabaseIsNeverWrittenNorCheckpointed() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path data = Files.createDirectories(dir.resolve("k3s"));
        Path db = data.resolve("state.db");
        long last;
        try (KineServer kine = KineServer.start(db, dir.resolve("kine.log")); Client k = client("http://" + kine.endpoint())) {
            for (int i = 0; i < 50; i++) assertTrue(kineTxn(k.getKVClient(), "/registry/configmaps/ns/cm-" + i, 0, "v" + i, 0));
            last = mod(k.getKVClient(), "/registry/configmaps/ns/cm-49");
        } // a clean stop: kine leaves its rows in state.db-wal; the follow's connection is then the last one
        Path wal = data.resolve("state.db-wal");
        assertTrue(Files.size(wal) > 0);
        byte[] dbBefore = Files.readAllBytes(db);
        byte[] walBefore = Files.readAllBytes(wal);
        try (EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1)) {
            WalMigrateTest.Run r = WalMigrateTest.run("kine", "--sqlite", db.toString(), "--endpoints", dst.endpoints(), "--follow",
                    "--until-revision", Long.toString(last));
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("target equal to the source"), r.out());
        }
        assertTrue(java.util.Arrays.equals(dbBefore, Files.readAllBytes(db)), "state.db unchanged");
        assertTrue(Files.exists(wal) && java.util.Arrays.equals(walBefore, Files.readAllBytes(wal)), "state.db-wal neither checkpointed nor deleted");
    }

    /** A key as the source etcd served it at the cut-over: its value and lease ID. */
    private record Held(String value, long lease) {
    }

    /**
     * A live etcd followed into an offline output ({@code --out-wal DIR} or {@code --out-kine DIR}, the file it
     * publishes {@code published}) while it is written: updates, deletes, creates again, a transaction of two keys, a
     * leased key (TTL 900); nothing is in DIR before the cut-over. What etcd served at the cut-over.
     */
    private Map<String, Held> followIntoOffline(String flag, Path out, String published) throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); Client s = client(src.endpoints())) {
            KV kv = s.getKVClient();
            long lease = s.getLeaseClient().grant(900).get().getID();
            for (int i = 0; i < 60; i++) kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v0-" + i)).get();
            Path cut = dir.resolve("cutover");
            Following run = follow("etcd", "--source-endpoints", src.endpoints(), flag, out.toString(),
                    "--prefix", "/registry/", "--follow", "--cutover", cut.toString());
            run.started();
            for (int n = 0; n < 120; n++) {
                int i = n % 70;
                switch (n % 3) {
                    case 0 -> kv.put(bs("/registry/configmaps/ns/cm-" + i), bs("v" + n)).get(); // updates, and creates past 60
                    case 1 -> kv.delete(bs("/registry/configmaps/ns/cm-" + ((i + 5) % 70))).get();
                    default -> kv.txn().Then(Op.put(bs("/registry/leases/ns/l-" + n), bs("hb"), PutOption.builder().withLeaseId(lease).build()),
                            Op.put(bs("/registry/pods/ns/p-" + n), bs("pod"), PutOption.DEFAULT)).commit().get();
                }
            }
            kv.put(bs("/registry/configmaps/ns/cm-6"), bs("made again")).get(); // deleted above, created again
            assertTrue(!Files.exists(out.resolve(published)), "nothing is published before the cut-over");
            Files.createFile(cut);
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("target equal to the source"), r.out());
            assertTrue(r.out().contains("; published"), r.out());
            Map<String, Held> served = new TreeMap<>();
            for (KeyValue x : kv.get(bs("/registry/"), GetOption.builder().isPrefix(true).build()).get().getKvs()) {
                served.put(dev.walkit.cli.KeyText.quote(x.getKey().getBytes()), new Held(x.getValue().toString(StandardCharsets.UTF_8), x.getLease()));
            }
            WalMigrateTest.Run again = WalMigrateTest.run("etcd", "--source-endpoints", src.endpoints(), flag, out.toString(), "--follow",
                    "--until-revision", "1");
            assertEquals(2, again.exit(), "a published output is never written over: " + again.err());
            return served;
        }
    }

    @Test
    void aLiveEtcdFollowedIntoTheStoresWalIsPublishedAtTheCutOver() throws Exception {
        Path store = dir.resolve("store");
        Map<String, Held> want = followIntoOffline("--out-wal", store, "wal");
        Map<String, Held> got = new TreeMap<>();
        try (WalSource w = WalSource.open(store)) {
            while (w.hasNext()) {
                SourceKey k = w.next();
                got.put(dev.walkit.cli.KeyText.quote(k.key()), new Held(new String(k.value(), StandardCharsets.UTF_8), k.lease()));
            }
        }
        assertEquals(want, got, "the store's WAL holds what etcd serves, its lease IDs kept");
        long lease = want.values().stream().mapToLong(Held::lease).max().orElseThrow();
        assertTrue(Files.readString(store.resolve("leases.json")).contains("\"id\":" + lease + ",\"ttl_seconds\":900"), "leases.json");
    }

    @Test
    void aSourceCompactedPastWhereTheFollowStoodIsAnErrorThatSaysWhatToDo() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            for (int i = 0; i < 20; i++) s.getKVClient().put(bs("/registry/configmaps/ns/cm-" + (i % 5)), bs("v" + i)).get();
            // A follow killed after revision 3 (its marker in the target), then the source compacted to 15 meanwhile.
            t.getKVClient().put(bs(FollowMarker.DEFAULT_KEY), ByteSequence.from(new FollowMarker("etcd " + src.endpoints() + " (followed)",
                    FollowMarker.Phase.FOLLOW, 3).encode())).get();
            s.getKVClient().compact(15).get();
            WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--follow",
                    "--until-revision", "21");
            assertEquals(4, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("the source etcd compacted its history to revision 15, past revision 3 that this follow had to read on from"), r.err());
            assertTrue(r.err().contains("migrate again into an empty target"), r.err());
            assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        }
    }

    @Test
    void untilRevisionTheSourceIsAlreadyPastCopiesTheStateAtIt() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            long at = 0;
            for (int n = 0; n < 100; n++) at = kv.put(bs("/registry/configmaps/ns/cm-" + (n % 30)), bs("v" + n)).get().getHeader().getRevision();
            long until = at - 40;
            WalMigrateTest.Run r = WalMigrateTest.run("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(), "--prefix", "/registry/",
                    "--follow", "--until-revision", Long.toString(until));
            assertEquals(0, r.exit(), r.out() + r.err());
            Map<String, String> atUntil = new TreeMap<>();
            for (KeyValue x : kv.get(bs("/registry/"), GetOption.builder().isPrefix(true).withRevision(until).build()).get().getKvs()) {
                atUntil.put(dev.walkit.cli.KeyText.quote(x.getKey().getBytes()), dev.walkit.cli.KeyText.quote(x.getValue().getBytes()) + " ttl=0");
            }
            assertEquals(atUntil, served(t, "/registry/", false), "the copy is of the state at --until-revision, not the newest");
            assertTrue(r.out().contains("cut over at revision " + until + " "), r.out());
        }
    }

    @Test
    void aLiveEtcdFollowedIntoKinesDatabaseIsServedByTheRealKineAfterTheCutOver() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path back = dir.resolve("k3s");
        Map<String, String> want = new TreeMap<>();
        followIntoOffline("--out-kine", back, "state.db").forEach((k, h) -> want.put(k,
                dev.walkit.cli.KeyText.quote(h.value().getBytes(StandardCharsets.UTF_8)) + " ttl=" + (h.lease() == 0 ? 0 : 900)));
        try (KineServer kine = KineServer.start(back.resolve("state.db"), dir.resolve("kine.log")); Client k = client("http://" + kine.endpoint())) {
            Map<String, String> served = served(k, "/registry/", true);
            served.remove("/registry/health"); // kine writes its own at start
            assertEquals(want, served, "the real kine serves what etcd served at the cut-over, leases as their TTLs");
        }
    }

    @Test
    void aKeyWrittenInTheTargetBySomeoneElseIsAConflictNeverOverwritten() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1);
             Client s = client(src.endpoints()); Client t = client(dst.endpoints())) {
            KV kv = s.getKVClient();
            ByteSequence raw = ByteSequence.from(new byte[] {'/', 'r', 'e', 'g', '/', (byte) 0xff, 1});
            for (int i = 0; i < 10; i++) kv.put(bs("/reg/cm-" + i), bs("v0")).get();
            kv.put(raw, bs("v0")).get();
            Path cut = dir.resolve("cutover");
            Following run = follow("etcd", "--source-endpoints", src.endpoints(), "--endpoints", dst.endpoints(),
                    "--prefix", "/reg/", "--follow", "--cutover", cut.toString(), "-w", "json");
            run.started();
            t.getKVClient().put(raw, bs("theirs")).get(); // someone else writes to the target during the follow
            kv.txn().Then(Op.put(raw, bs("v1"), PutOption.DEFAULT), Op.put(bs("/reg/cm-1"), bs("v1"), PutOption.DEFAULT)).commit().get();
            kv.put(bs("/reg/cm-2"), bs("v1")).get();
            Files.createFile(cut);
            WalMigrateTest.Run r = run.get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(1, r.exit(), "conflicts: exit 1: " + r.out() + r.err());
            JsonNode j = json(r);
            assertEquals(1, j.get("follow_conflicts").asLong(), r.out());
            assertEquals("/reg/\\xff\\x01", j.get("follow_conflict_keys").get(0).asText(), r.out());
            assertEquals(java.util.Base64.getEncoder().encodeToString(raw.getBytes()), j.get("follow_conflict_keys_base64").get(0).asText());
            assertEquals("theirs", t.getKVClient().get(raw).get().getKvs().get(0).getValue().toString(StandardCharsets.UTF_8), "never overwritten");
            assertEquals("v1", t.getKVClient().get(bs("/reg/cm-1")).get().getKvs().get(0).getValue().toString(StandardCharsets.UTF_8),
                    "the rest of its transaction applied");
            assertEquals("v1", t.getKVClient().get(bs("/reg/cm-2")).get().getKvs().get(0).getValue().toString(StandardCharsets.UTF_8), "and the follow went on");
            assertTrue(!j.get("equal").asBoolean() && j.get("different_count").asLong() == 1, r.out());
            assertEquals(1, t.getKVClient().get(bs(FollowMarker.DEFAULT_KEY)).get().getCount(), "the marker stays while the target differs");
        }
    }

    @Test
    void badFollowCommandLinesAreOneLineAndTheRightExitCode() throws Exception {
        Path cut = Files.createFile(dir.resolve("cutover"));
        Path notWal = dir.resolve("not-a-wal");
        Files.write(notWal, new byte[200]);
        Path wal = dir.resolve("wal");
        Files.write(wal, new byte[0]);
        String[][] usage = {
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--cutover", cut.toString()},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--dry-run"},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--until-revision", "5"},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--out-wal", dir.resolve("o").toString(), "--follow"},
            {"wal", "--wal", wal.toString(), "--out-wal", dir.resolve("o").toString(), "--out-kine", dir.resolve("k").toString(), "--follow"},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--coalesce", "0"},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--coalesce", "1025"},
            {"wal", "--wal", wal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--pipeline", "0"},
        };
        for (String[] args : usage) {
            WalMigrateTest.Run r = WalMigrateTest.run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", notWal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--until-revision", "1");
        assertEquals(4, r.exit(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("not a WAL") || r.err().contains("not a v2"), r.err());
        WalMigrateTest.Run k = WalMigrateTest.run("kine", "--sqlite", notWal.toString(), "--endpoints", "127.0.0.1:1", "--follow", "--until-revision", "1");
        assertEquals(4, k.exit(), k.err());
        assertEquals(1, k.err().lines().count(), k.err());
    }

    @Test
    void sigtermIsTheCutOverOfAFollowIntoTheStoresWal() throws Exception {
        Path store = dir.resolve("store");
        try (LiveWal wal = LiveWal.create(dir.resolve("wal"))) {
            for (int i = 0; i < 50; i++) wal.put("/registry/configmaps/ns/cm-" + i, "v0", 0);
            Path out = dir.resolve("follow.json");
            Process p = FollowKillTest.start(List.of("wal", "--wal", wal.path().toString(), "--out-wal", store.toString(), "--follow", "-w", "json"), out);
            Await.contains("the follow to begin", dir.resolve("follow.json.err"), "walmigrate: following ", p);
            wal.txn(List.of(LiveWal.Op.put("/registry/configmaps/ns/cm-1", "v1", 0), LiveWal.Op.delete("/registry/configmaps/ns/cm-2")));
            p.destroy(); // SIGTERM: the cut-over reads the source to its end first
            assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), Files.readString(out) + Files.readString(dir.resolve("follow.json.err")));
            JsonNode j = new ObjectMapper().readTree(Files.readString(out));
            assertEquals("a signal", j.get("cutover_why").asText(), j.toString());
            assertTrue(j.get("equal").asBoolean(), j.toString());
            Map<String, String> got = new TreeMap<>();
            try (WalSource w = WalSource.open(store)) {
                while (w.hasNext()) {
                    SourceKey k = w.next();
                    got.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.UTF_8));
                }
            }
            Map<String, String> want = new TreeMap<>();
            wal.live().forEach((k, h) -> want.put(k, new String(h.value(), StandardCharsets.UTF_8)));
            assertEquals(want, got, "published at the signal, with the change made during the follow (the temp file outlived the signal)");
            assertEquals("v1", got.get("/registry/configmaps/ns/cm-1"));
        }
    }
}
