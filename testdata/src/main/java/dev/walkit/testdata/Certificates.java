package dev.walkit.testdata;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test PKI made with openssl: {@code ca.pem}, and {@code server.pem}/{@code server-key.pem} (for 127.0.0.1 and
 * localhost) and {@code client.pem}/{@code client-key.pem} (CN root) signed by it, as etcd's TLS flags take them.
 */
public final class Certificates {
    private Certificates() {
    }

    /** Runs openssl in {@code cwd}; throws with its output when it fails. */
    public static void openssl(Path cwd, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(String.join(" ", cmd) + ": " + out);
    }

    /** Makes the PKI in {@code dir} (created); returns {@code dir}. */
    public static Path make(Path dir) throws Exception {
        Path t = Files.createDirectories(dir);
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
}
