package dev.walkit.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;

/** Builds the jetcd client from the options: endpoints (fail over between them), TLS, user and password. */
final class EtcdClients {
    private EtcdClients() {
    }

    static Client build(MigrateOptions o) throws IOException {
        ClientBuilder b = Client.builder().endpoints(o.endpoints().toArray(new String[0])).connectTimeout(Duration.ofSeconds(5))
                .retryMaxDuration(Duration.ofSeconds(30)).waitForReady(true);
        if (o.cacert() != null || o.cert() != null) {
            SslContextBuilder ssl = GrpcSslContexts.forClient();
            if (o.cacert() != null) ssl.trustManager(o.cacert().toFile());
            if (o.cert() != null) ssl.keyManager(o.cert().toFile(), o.key().toFile());
            b.sslContext(ssl.build());
        }
        if (o.user() != null) {
            String password = Files.readString(o.passwordFile(), StandardCharsets.UTF_8).strip();
            b.user(ByteSequence.from(o.user(), StandardCharsets.UTF_8)).password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        return b.build();
    }
}
