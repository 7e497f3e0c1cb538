package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.testdata.Await;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** walmigrate to an etcd that requires TLS and client certificates (made here with openssl). */
class TlsTest {
    @TempDir
    Path dir;

    private static void openssl(Path cwd, String... args) throws Exception {
        dev.walkit.testdata.Certificates.openssl(cwd, args);
    }

    private Path certificates() throws Exception {
        return dev.walkit.testdata.Certificates.make(dir.resolve("tls"));
    }

    @Test
    void migratesOverTlsWithClientCertificates() throws Exception {
        Path tls = certificates();
        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1, tls)) {
            KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(12, 300));
            Path db = dir.resolve("state.db");
            g.write(db);
            String[] tlsArgs = {"--cacert", tls.resolve("ca.pem").toString(), "--cert", tls.resolve("client.pem").toString(),
                    "--key", tls.resolve("client-key.pem").toString()};
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            String[] args = concat(new String[] {"kine", "--sqlite", db.toString(), "--endpoints", etcd.endpoints()}, tlsArgs);
            int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
            assertEquals(0, code, out + " " + err);
            assertTrue(out.toString().contains(String.format("%,d written", g.live().size())), out.toString());
            StringWriter vout = new StringWriter();
            StringWriter verr = new StringWriter();
            String[] vargs = concat(new String[] {"verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints()}, tlsArgs);
            assertEquals(0, Cli.run(new WalMigrate(), new PrintWriter(vout), new PrintWriter(verr), vargs), vout + " " + verr);
        }
    }

    @Test
    void aLiveSourceOverTlsWithClientCertificates() throws Exception {
        Path tls = certificates();
        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1, tls)) {
            String[] ctl = {"--cacert", tls.resolve("ca.pem").toString(), "--cert", tls.resolve("client.pem").toString(),
                    "--key", tls.resolve("client-key.pem").toString()};
            Etcdctl.run(etcd.endpoints(), null, concat(ctl, new String[] {"put", "/registry/configmaps/default/tls", "over-tls"}));
            Path out = dir.resolve("store");
            Run r = run("etcd", "--source-endpoints", etcd.endpoints(), "--source-cacert", ctl[1], "--source-cert", ctl[3], "--source-key", ctl[5],
                    "--out-wal", out.toString());
            assertEquals(0, r.exit(), r.out() + r.err());
            try (WalSource s = WalSource.open(out)) {
                SourceKey k = s.next();
                assertEquals("over-tls", new String(k.value(), java.nio.charset.StandardCharsets.UTF_8));
            }
            // Without the client certificate the source refuses, and the message says whose options to fix.
            Run noCert = run("etcd", "--source-endpoints", etcd.endpoints(), "--source-cacert", ctl[1], "--out-wal", dir.resolve("x").toString());
            assertEquals(5, noCert.exit(), noCert.out() + noCert.err());
            Run badUrl = run("etcd", "--source-endpoints", "ftp://x:1", "--out-wal", dir.resolve("y").toString());
            assertEquals(2, badUrl.exit(), badUrl.err());
            assertTrue(badUrl.err().contains("--source-endpoints: 'ftp://x:1' is not an etcd client URL"), badUrl.err());
        }
    }

    /**
     * A source of three members over TLS, followed through all three endpoints: its watch (grpc-java's own stream, not
     * the client's) carries the certificates, and when the member it is on is killed it is made again on the next from
     * the revision after the last one delivered: the writes before and after the kill all reach the target, and it ends
     * equal at the cut-over.
     */
    @Test
    void aFollowedSourceOverTlsLosesTheMemberItsWatchIsOn() throws Exception {
        Path tls = certificates();
        try (EtcdCluster src = EtcdCluster.start(dir.resolve("src"), 3, tls); EtcdCluster dst = EtcdCluster.start(dir.resolve("dst"), 1)) {
            String ca = tls.resolve("ca.pem").toString();
            String cert = tls.resolve("client.pem").toString();
            String key = tls.resolve("client-key.pem").toString();
            io.netty.handler.ssl.SslContext ssl = io.grpc.netty.GrpcSslContexts.forClient().trustManager(new java.io.File(ca))
                    .keyManager(new java.io.File(cert), new java.io.File(key)).build();
            List<String> urls = src.clientUrls();
            try (io.etcd.jetcd.Client writer = io.etcd.jetcd.Client.builder().endpoints(urls.get(1), urls.get(2)).sslContext(ssl).build();
                 io.etcd.jetcd.Client s = io.etcd.jetcd.Client.builder().endpoints(urls.get(1), urls.get(2)).sslContext(ssl).build();
                 io.etcd.jetcd.Client t = FollowMigrateTest.client(dst.endpoints())) {
                io.etcd.jetcd.KV kv = writer.getKVClient();
                for (int i = 0; i < 50; i++) kv.put(FollowMigrateTest.bs("/registry/configmaps/ns/cm-" + i), FollowMigrateTest.bs("copied-" + i)).get();
                Path cut = dir.resolve("cutover");
                FollowMigrateTest.Following run = FollowMigrateTest.follow("etcd", "--source-endpoints", src.endpoints(), "--source-cacert", ca,
                        "--source-cert", cert, "--source-key", key, "--endpoints", dst.endpoints(), "--prefix", "/registry/", "--follow",
                        "--cutover", cut.toString(), "-w", "json").started();
                for (int i = 0; i < 60; i++) kv.put(FollowMigrateTest.bs("/registry/configmaps/ns/cm-" + i), FollowMigrateTest.bs("before-" + i)).get();
                Await.until("the follow to apply the writes before the kill", () -> "before-59".equals(value(t, "/registry/configmaps/ns/cm-59")));
                src.kill(0);
                for (int i = 0; i < 60; i++) {
                    String k = "/registry/pods/ns/p-" + i;
                    String d = "/registry/configmaps/ns/cm-" + i;
                    String v = "after-" + i;
                    // Put again while the members left elect a leader (the one killed may have led): each is idempotent.
                    Await.until("a write after the kill", () -> kv.put(FollowMigrateTest.bs(k), FollowMigrateTest.bs(v)).get(30, TimeUnit.SECONDS) != null);
                    if (i % 3 == 0) Await.until("a delete after the kill", () -> kv.delete(FollowMigrateTest.bs(d)).get(30, TimeUnit.SECONDS) != null);
                }
                Await.until("the follow to apply the writes after the kill", () -> {
                    if (run.run().isDone()) throw new AssertionError("the follow ended: " + run.err() + run.run().get().err());
                    return "after-59".equals(value(t, "/registry/pods/ns/p-59"));
                });
                FollowMigrateTest.cutOver(cut, run, 130);
                assertEquals(FollowMigrateTest.served(s, "/registry/", false), FollowMigrateTest.served(t, "/registry/", false));
            }
        }
    }

    static String value(io.etcd.jetcd.Client c, String key) throws Exception {
        List<io.etcd.jetcd.KeyValue> kvs = c.getKVClient().get(FollowMigrateTest.bs(key)).get(30, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private record Run(int exit, String out, String err, long millis) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long t0 = System.nanoTime();
        int code = Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** The key formats k3s and etcd's tooling write, each taken; each TLS mistake named within 5 s, exit 5. */
    @Test
    void keysInEveryPemFormatAndEachTlsMistakeNamed() throws Exception {
        Path t = certificates();
        // PKCS#1 ("BEGIN RSA PRIVATE KEY"), from the PKCS#8 key genpkey wrote.
        openssl(t, "rsa", "-in", "client-key.pem", "-traditional", "-out", "client-key-pkcs1.pem");
        assertTrue(Files.readString(t.resolve("client-key-pkcs1.pem")).contains("BEGIN RSA PRIVATE KEY"));
        // SEC1 ("BEGIN EC PRIVATE KEY", after an EC PARAMETERS block), as k3s generates its keys.
        openssl(t, "ecparam", "-name", "prime256v1", "-genkey", "-out", "ec-key.pem");
        assertTrue(Files.readString(t.resolve("ec-key.pem")).contains("BEGIN EC PRIVATE KEY"));
        openssl(t, "req", "-new", "-key", "ec-key.pem", "-out", "ec.csr", "-subj", "/CN=root");
        openssl(t, "x509", "-req", "-in", "ec.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", "ec.pem", "-days", "2");
        // Another CA, and a client certificate it signed.
        openssl(t, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca-key.pem", "-out", "other-ca.pem", "-days", "2", "-subj", "/CN=other-ca");
        openssl(t, "x509", "-req", "-in", "client.csr", "-CA", "other-ca.pem", "-CAkey", "other-ca-key.pem", "-CAcreateserial", "-out", "stranger.pem", "-days", "2");
        try (EtcdCluster etcd = EtcdCluster.start(dir.resolve("etcd"), 1, tls(t))) {
            Path db = dir.resolve("state.db");
            new KineDbGenerator(KineDbGenerator.Options.of(13, 60)).write(db);
            String ca = t.resolve("ca.pem").toString();
            for (String[] pair : new String[][] {{"client.pem", "client-key-pkcs1.pem"}, {"ec.pem", "ec-key.pem"}}) {
                Run r = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--cacert", ca, "--cert", t.resolve(pair[0]).toString(),
                        "--key", t.resolve(pair[1]).toString());
                assertTrue(r.exit() == 0 || r.exit() == 1, pair[1] + " is taken: " + r.err());
            }
            Run unknownCa = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--cacert", t.resolve("other-ca.pem").toString(),
                    "--cert", t.resolve("client.pem").toString(), "--key", t.resolve("client-key.pem").toString());
            assertEquals(5, unknownCa.exit(), unknownCa.err());
            assertTrue(unknownCa.err().contains("the server's certificate is not signed by --cacert (unknown CA)"), unknownCa.err());
            assertTrue(unknownCa.millis() < 5_000, unknownCa.millis() + " ms");
            Run rejected = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--cacert", ca,
                    "--cert", t.resolve("stranger.pem").toString(), "--key", t.resolve("client-key.pem").toString());
            assertEquals(5, rejected.exit(), rejected.err());
            assertTrue(rejected.err().contains("the server rejected the client certificate"), rejected.err());
            assertTrue(rejected.millis() < 5_000, rejected.millis() + " ms");
            Run mismatch = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--cacert", ca,
                    "--cert", t.resolve("client.pem").toString(), "--key", t.resolve("server-key.pem").toString());
            assertEquals(5, mismatch.exit(), mismatch.err());
            assertTrue(mismatch.err().contains(t.resolve("server-key.pem") + ": --key does not match the certificate in " + t.resolve("client.pem")), mismatch.err());
            Run missing = run("verify", "--sqlite", db.toString(), "--endpoints", etcd.endpoints(), "--cacert", ca,
                    "--cert", t.resolve("client.pem").toString(), "--key", t.resolve("nope.pem").toString());
            assertEquals(5, missing.exit(), missing.err());
            assertTrue(missing.err().contains(t.resolve("nope.pem") + ": --key: no such file"), missing.err());
            for (Run r : new Run[] {unknownCa, rejected, mismatch, missing}) assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        }
    }

    private static Path tls(Path t) {
        return t;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
