package dev.walkit.migrate;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * walmigrate's TLS files read as etcdctl reads them: a private key in PEM as PKCS#8 ({@code PRIVATE KEY}),
 * PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}, what k3s generates), RSA or EC (parsed by
 * Bouncy Castle's PEMParser; netty alone takes PKCS#8 only); certificates in PEM. Each problem is one line
 * naming the option and the file: missing, not a key, a key that does not match the certificate.
 */
final class TlsMaterial {
    final X509Certificate[] ca;
    final X509Certificate[] chain;
    final PrivateKey key;

    private TlsMaterial(X509Certificate[] ca, X509Certificate[] chain, PrivateKey key) {
        this.ca = ca;
        this.chain = chain;
        this.key = key;
    }

    /** Reads {@code --cacert}, {@code --cert} and {@code --key} (each may be null; cert and key go together). */
    static TlsMaterial read(Path cacert, Path cert, Path key) throws IOException {
        X509Certificate[] ca = cacert == null ? null : certificates(cacert, "--cacert");
        X509Certificate[] chain = cert == null ? null : certificates(cert, "--cert");
        PrivateKey k = key == null ? null : privateKey(key);
        if (chain != null && k != null) checkPair(k, chain[0], key, cert);
        return new TlsMaterial(ca, chain, k);
    }

    static X509Certificate[] certificates(Path file, String option) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            List<? extends Certificate> all = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
            if (all.isEmpty()) throw new IOException(file + ": " + option + " holds no PEM certificate");
            return all.stream().map(c -> (X509Certificate) c).toArray(X509Certificate[]::new);
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": " + option + ": no such file");
        } catch (java.security.cert.CertificateException e) {
            throw new IOException(file + ": " + option + " is not a PEM certificate (" + e.getMessage() + ")");
        }
    }

    static PrivateKey privateKey(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser p = new PEMParser(r)) {
            JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
            for (Object o; (o = p.readObject()) != null; ) {
                if (o instanceof PEMKeyPair pair) return conv.getKeyPair(pair).getPrivate(); // PKCS#1 RSA, SEC1 EC
                if (o instanceof PrivateKeyInfo info) return conv.getPrivateKey(info); // PKCS#8
                // EC PARAMETERS before an EC PRIVATE KEY (openssl ecparam -genkey writes both): skip it.
            }
            throw new IOException(file + ": --key holds no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY; an encrypted key is not taken)");
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": --key: no such file");
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(file.toString())) throw e;
            throw new IOException(file + ": --key is not a readable PEM private key (" + e.getMessage() + ")");
        }
    }

    /** The key signs what the certificate's public key verifies, or the pair is named as not matching. */
    static void checkPair(PrivateKey key, X509Certificate cert, Path keyFile, Path certFile) throws IOException {
        try {
            String alg = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256with" + key.getAlgorithm();
            byte[] msg = "walkit".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(msg);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(cert.getPublicKey());
            v.update(msg);
            if (!v.verify(sig)) throw new GeneralSecurityException("no");
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IOException(keyFile + ": --key does not match the certificate in " + certFile + " (--cert)");
        }
    }

    /** The same material as a JSSE context, for the handshake walmigrate tries before it starts. */
    SSLContext jsse() throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        char[] pw = "walkit".toCharArray();
        if (key != null) ks.setKeyEntry("client", key, pw, chain);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (ca != null) {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            for (int i = 0; i < ca.length; i++) ts.setCertificateEntry("ca" + i, ca[i]);
            tmf.init(ts);
        } else {
            tmf.init((KeyStore) null);
        }
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(key != null ? kmf.getKeyManagers() : null, tmf.getTrustManagers(), null);
        return c;
    }
}
