package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.testdata.EtcdCluster;
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

    private void openssl(Path cwd, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", cmd) + ": " + out);
    }

    private Path certificates() throws Exception {
        Path t = Files.createDirectories(dir.resolve("tls"));
        Files.writeString(t.resolve("san.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(t, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=walkit-test-ca");
        for (String who : new String[] {"server", "client"}) {
            openssl(t, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", who + "-key.pem");
            openssl(t, "req", "-new", "-key", who + "-key.pem", "-out", who + ".csr", "-subj", "/CN=" + (who.equals("server") ? "localhost" : "root"));
            openssl(t, "x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", who + ".pem",
                    "-days", "2", "-extfile", "san.cnf");
        }
        return t;
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

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
