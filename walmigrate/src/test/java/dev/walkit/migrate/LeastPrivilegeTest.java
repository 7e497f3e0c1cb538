package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.format.Fixtures;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job as the least-privilege user deploy/etcd-least-privilege.sh makes (readwrite on /registry/ only), against
 * a real etcd with auth enabled: it starts, migrates, reruns and verifies; outside its prefix it is refused.
 */
class LeastPrivilegeTest {
    @TempDir
    Path dir;

    private static String etcdctl(String endpoints, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoints));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS) && p.exitValue() == 0, cmd + ": " + out);
        return out;
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void theJobRunsAsTheUserTheDeployScriptMakes() throws Exception {
        Path db = dir.resolve("state.db");
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(14, 400));
        g.write(db);
        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            String ep = etcd.endpoints();
            Path pw = leastPrivilege(ep);
            String[] user = {"--user", "walkit-migrate", "--password-file", pw.toString()};

            Run r = run(concat(new String[] {"kine", "--sqlite", db.toString(), "--endpoints", ep, "--prefix", "/registry/"}, user));
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains(String.format("%,d written", g.live().size())), r.out());
            Run again = run(concat(new String[] {"kine", "--sqlite", db.toString(), "--endpoints", ep, "--prefix", "/registry/"}, user));
            assertEquals(0, again.exit(), again.out() + again.err());
            Run verify = run(concat(new String[] {"verify", "--sqlite", db.toString(), "--endpoints", ep, "--prefix", "/registry/"}, user));
            assertEquals(0, verify.exit(), verify.out() + verify.err());
            // Outside its prefix the role gives nothing: the whole key space is refused, at once and said so.
            Run all = run(concat(new String[] {"kine", "--sqlite", db.toString(), "--endpoints", ep}, user));
            assertEquals(5, all.exit(), all.out() + all.err());
            assertTrue(all.err().contains("permission denied"), all.err());
        }
    }

    /**
     * The least-privilege user follows a source etcd with auth enabled: the follow's watch (its own stream) carries a
     * token authenticated for that user (without it, etcd refuses the watch: no user), and the writes made while it
     * follows reach the target.
     */
    @Test
    void theUserFollowsASourceWithAuthEnabled() throws Exception {
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 1); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1)) {
            String ep = src.endpoints();
            Path pw = leastPrivilege(ep);
            try (io.etcd.jetcd.Client root = io.etcd.jetcd.Client.builder().endpoints(ep).user(FollowMigrateTest.bs("root"))
                    .password(FollowMigrateTest.bs("rootpw")).build(); io.etcd.jetcd.Client t = FollowMigrateTest.client(dst.endpoints())) {
                io.etcd.jetcd.KV kv = root.getKVClient();
                for (int i = 0; i < 20; i++) kv.put(FollowMigrateTest.bs("/registry/secrets/ns/s-" + i), FollowMigrateTest.bs("copied-" + i)).get();
                Path cut = dir.resolve("cutover");
                FollowMigrateTest.Following run = FollowMigrateTest.follow("etcd", "--source-endpoints", ep, "--source-user", "walkit-migrate",
                        "--source-password-file", pw.toString(), "--endpoints", dst.endpoints(), "--prefix", "/registry/", "--follow",
                        "--cutover", cut.toString(), "-w", "json").started();
                for (int i = 0; i < 40; i++) kv.put(FollowMigrateTest.bs("/registry/secrets/ns/s-" + i), FollowMigrateTest.bs("followed-" + i)).get();
                kv.put(FollowMigrateTest.bs("/outside/not-followed"), FollowMigrateTest.bs("x")).get();
                Await.until("the follow to apply the writes", () -> "followed-39".equals(TlsTest.value(t, "/registry/secrets/ns/s-39")));
                FollowMigrateTest.cutOver(cut, run, 39);
                assertEquals(FollowMigrateTest.served(root, "/registry/", false), FollowMigrateTest.served(t, "/registry/", false));
            }
        }
    }

    /**
     * Auth enabled on the etcd at {@code ep} (root's password rootpw) and the job's user made as the deploy script makes
     * it (walkit-migrate, readwrite on /registry/ only); returns the file holding that user's password.
     */
    private Path leastPrivilege(String ep) throws Exception {
        etcdctl(ep, Map.of(), "user", "add", "root:rootpw");
        etcdctl(ep, Map.of(), "auth", "enable");
        Path script = Fixtures.root().resolve("deploy/etcd-least-privilege.sh");
        ProcessBuilder pb = new ProcessBuilder("sh", script.toString()).redirectErrorStream(true);
        pb.environment().putAll(Map.of("ETCDCTL_ENDPOINTS", ep, "ETCDCTL_USER", "root:rootpw", "WALKIT_PASSWORD", "jobpw"));
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), said);
        return Files.writeString(dir.resolve("password"), "jobpw\n");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
