package dev.walkit.migrate;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * One TLS handshake with the first endpoint before the job starts, with the job's own certificates, so that a
 * TLS problem is named within {@link #LIMIT} with its cause (gRPC retries it silently until the reach check
 * gives up, 10 s later, saying only that there was no answer). A TCP failure is left to that check.
 */
final class TlsProbe {
    static final long LIMIT = TimeUnit.SECONDS.toMillis(5);

    private TlsProbe() {
    }

    /** Returns when the handshake succeeds or TCP does not connect; throws with the cause named when TLS fails. */
    static void check(String endpoint, TlsMaterial tls) throws IOException {
        URI u = URI.create(endpoint.contains("://") ? endpoint : "https://" + endpoint);
        String host = u.getHost();
        int port = u.getPort() < 0 ? 2379 : u.getPort();
        Socket raw = new Socket();
        try {
            raw.connect(new InetSocketAddress(host, port), (int) LIMIT);
        } catch (IOException e) {
            raw.close();
            return; // not a TLS matter: the reach check names it
        }
        try (SSLSocket s = (SSLSocket) tls.jsse().getSocketFactory().createSocket(raw, host, port, true)) {
            s.setSoTimeout((int) LIMIT);
            var p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            p.setApplicationProtocols(new String[] {"h2"});
            s.setSSLParameters(p);
            s.startHandshake();
            // Under TLS 1.3 a server that rejects the client's certificate says so after the handshake: wait for
            // its alert a moment (a server that accepted says nothing until the client speaks).
            s.setSoTimeout(700);
            try {
                s.getInputStream().read();
            } catch (SocketTimeoutException quiet) {
                // accepted
            }
        } catch (SSLException e) {
            throw new IOException("TLS with etcd at " + endpoint + " failed: " + cause(e));
        } catch (SocketTimeoutException e) {
            throw new IOException("TLS with etcd at " + endpoint + " failed: no TLS answer within " + LIMIT / 1000 + " s (is the endpoint TLS at all?)");
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("TLS with etcd at " + endpoint + ": the certificates could not be used: " + e.getMessage());
        }
    }

    /** The handshake's failure in an operator's words. */
    static String cause(SSLException e) {
        String all = String.valueOf(e.getMessage());
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) all += " | " + t.getMessage();
        if (all.contains("PKIX path") || all.contains("unable to find valid certification path")) {
            return "the server's certificate is not signed by --cacert (unknown CA)";
        }
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return "the server's certificate does not name this host (" + e.getMessage() + ")";
        }
        if (all.contains("bad_certificate") || all.contains("certificate_unknown") || all.contains("unknown_ca")
                || all.contains("certificate_required") || all.contains("decrypt_error")) {
            return "the server rejected the client certificate (--cert/--key): " + e.getMessage();
        }
        if (all.contains("Unsupported or unrecognized SSL message") || all.contains("plaintext")) {
            return "the endpoint does not speak TLS (use http:// for a plain endpoint)";
        }
        return e.getMessage();
    }
}
