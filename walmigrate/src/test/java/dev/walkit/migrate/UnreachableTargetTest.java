package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.format.Fixtures;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.KineDbGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An etcd that does not answer (nothing listening, a port that accepts and stays silent, one that goes
 * silent mid-run): walmigrate says so and exits 5 in bounded time, instead of waiting for ever, and
 * accounts for every key it did not write.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UnreachableTargetTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err, long millis) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString(), (System.nanoTime() - t0) / 1_000_000);
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void nothingListeningIsExitFiveWithOneLine() throws Exception {
        String endpoint = "http://127.0.0.1:" + freePort();
        Run r = run("wal", "--endpoints", endpoint, "--wal", Fixtures.path("vectors/small/wal").toString());
        assertEquals(5, r.exit(), r.err());
        // Refused at once, in the system's words: not "no answer" after the reach check's wait.
        assertEquals("walmigrate: cannot reach etcd at " + endpoint + ": connection refused (is it running? are --endpoints right?)\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnknownHostIsSaidAsSuchInOneLine() throws Exception {
        Run r = run("wal", "--endpoints", "http://no-such-host.invalid:2379", "--wal", Fixtures.path("vectors/small/wal").toString());
        assertEquals(5, r.exit(), r.err());
        assertEquals("walmigrate: cannot reach etcd at http://no-such-host.invalid:2379: unknown host no-such-host.invalid (is it running? are --endpoints right?)\n",
                r.err());
    }

    @Test
    void anEndpointWithoutSchemeIsTakenAsEtcdctlTakesIt() throws Exception {
        int port = freePort();
        Run r = run("wal", "--endpoints", "127.0.0.1:" + port, "--wal", Fixtures.path("vectors/small/wal").toString());
        assertEquals(5, r.exit(), r.err());
        assertTrue(r.err().startsWith("walmigrate: cannot reach etcd at http://127.0.0.1:" + port + ": connection refused"), r.err());
    }

    @Test
    void aPortThatNeverAnswersIsExitFiveToo() throws Exception {
        try (SilentProxy silent = new SilentProxy(0, 0)) {
            Run r = run("wal", "--endpoints", silent.endpoint(), "--wal", Fixtures.path("vectors/small/wal").toString());
            assertEquals(5, r.exit(), r.err());
            assertTrue(r.err().startsWith("walmigrate: cannot reach etcd at " + silent.endpoint() + ": no answer within 10 s"), r.err());
            Run verify = run("verify", "--endpoints", silent.endpoint(), "--wal", Fixtures.path("vectors/small/wal").toString());
            assertEquals(5, verify.exit(), verify.err());
            assertTrue(verify.err().contains("cannot reach etcd at " + silent.endpoint()), verify.err());
        }
    }

    @Test
    void aTargetSilentMidRunStopsTheMigrationAndEveryKeyIsAccountedFor() throws Exception {
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(3, 3000).withPrefix("/silent"));
        Path db = dir.resolve("state.db");
        g.write(db);
        long live = g.live().size();
        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            int port = URI.create(etcd.clientUrls().get(0)).getPort();
            MigrationReport r;
            try (SilentProxy proxy = new SilentProxy(port, 64 << 10)) {
                MigrateOptions o = new MigrateOptions(List.of(proxy.endpoint()), "", 20, 2, false, 3600, null, null, null, null, null);
                try (EarlyClient target = EarlyClient.connect(o); KineSource src = KineSource.open(db)) {
                    r = new Migrator(o, null, 2).run(src, target);
                }
                assertTrue(proxy.silent(), "the proxy went silent");
                // Within the silence allowed (2 s) and a little: a request begun just before it was not waited for in full.
                long afterSilence = (System.nanoTime() - proxy.silentSince()) / 1_000_000;
                assertTrue(afterSilence < 3_500, "stopped " + afterSilence + " ms after the target went silent");
            }
            assertEquals(live, r.sourceKeys());
            assertTrue(r.written() > 0 && r.unsent() > 0, r.written() + " written, " + r.unsent() + " not");
            assertEquals(live, r.written() + r.unsent(), "every key written or reported not written");
            assertEquals(1, r.errors().size(), r.errors().toString());
            assertTrue(r.errors().get(0).startsWith("stopped: etcd has not answered for 2 s ("), r.errors().get(0));
            assertTrue(!r.errors().get(0).contains("null"), "names the last real error, not a timeout's null message: " + r.errors().get(0));
            assertTrue(r.errors().get(0).contains(r.unsent() + " key(s) in "), r.errors().get(0));
            // Run again straight to etcd: the rest is written, nothing twice.
            Run again = run("kine", "--endpoints", etcd.endpoints(), "--sqlite", db.toString(), "--json");
            assertEquals(0, again.exit(), again.err());
            JsonNode j = new ObjectMapper().readTree(again.out());
            assertEquals(0, j.get("not_written").asLong());
            assertEquals(live, j.get("written").asLong() + j.get("already_present").asLong(), again.out());
            // At least what the first run saw written; perhaps a batch more, sent before the silence but never answered.
            assertTrue(j.get("already_present").asLong() >= r.written(), again.out());

            // A batch above etcd's --max-txn-ops is refused at once, not retried 30 times.
            MigrateOptions big = new MigrateOptions(List.of(etcd.endpoints()), "/none-yet", 500, 1, false, 3600, null, null, null, null, null);
            KineDbGenerator g2 = new KineDbGenerator(KineDbGenerator.Options.of(4, 1500).withPrefix("/none-yet"));
            Path db2 = dir.resolve("big.db");
            g2.write(db2);
            long t0 = System.nanoTime();
            MigrationReport refused;
            try (EarlyClient target = EarlyClient.connect(big); KineSource src = KineSource.open(db2)) {
                refused = new Migrator(big, null).run(src, target);
            }
            assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "refused without retries");
            assertEquals(refused.sourceKeys(), refused.unsent(), "nothing written, all reported");
            assertTrue(refused.errors().get(0).contains("was refused: StatusRuntimeException: INVALID_ARGUMENT: etcdserver: too many operations in txn request (--batch is above"),
                    refused.errors().toString());
        }
    }
}
