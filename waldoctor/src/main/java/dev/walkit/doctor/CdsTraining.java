package dev.walkit.doctor;

import com.google.protobuf.ByteString;
import dev.walkit.doctor.serve.EtcdEndpoint;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.RangeRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The run that bin/_cds archives {@code waldoctor serve}'s classes from ({@code WALKIT_CDS_TRAIN=1 waldoctor serve
 * SAMPLE}): serve's parse, the store's load and serve answering a Range of its own on a free loopback port, so that
 * serve's class-data sharing archive covers its gRPC and Netty classes (serve's own start was mostly theirs).
 */
final class CdsTraining {
    private CdsTraining() {
    }

    static int serve(String[] args) {
        Serve parsed = PlainArgs.serve(args);
        if (parsed == null) return 2;
        try (StoreHistory x = Pass.history(parsed.path, null)) {
            EtcdEndpoint endpoint = EtcdEndpoint.start(new ServedHistory(x, 0), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
            ManagedChannel ch = NettyChannelBuilder.forTarget("127.0.0.1:" + endpoint.port()).usePlaintext().build();
            try {
                KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("/registry/")).setRangeEnd(ByteString.copyFromUtf8("/registry0")).build());
            } finally {
                ch.shutdownNow();
                endpoint.close();
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            System.err.println("waldoctor: class-data sharing training: " + e);
            return 70;
        }
    }
}
