package dev.walkit.bench;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.RangeRequest;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Time from a command's start to the first Range answer of the etcd endpoint it opens: this JVM and its gRPC client
 * are warm before the clock starts (a thousand Ranges over twenty connections to a server of its own), so only the
 * served process's own start counts. Prints the seconds.
 * Usage: FirstAnswer HOST:PORT KEY STDERR-FILE COMMAND...
 */
public final class FirstAnswer {
    private FirstAnswer() {
    }

    /** Whether something accepts connections at HOST:PORT now. */
    private static boolean listening(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open()) {
            c.connect(new java.net.InetSocketAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1))));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /**
     * Warms this JVM's client on a whole exchange (connections made, HTTP/2's handshake, Ranges asked and answered) with
     * a server of its own that answers every Range empty: only then is the client's part of the first answer small
     * beside the served process's (a client warmed by a refused connect only ran its HTTP/2 code cold, in the clock).
     */
    private static void warmClient(RangeRequest r) throws Exception {
        io.grpc.Server own = io.grpc.netty.NettyServerBuilder.forAddress(new java.net.InetSocketAddress("127.0.0.1", 0))
                .addService(new KVGrpc.KVImplBase() {
                    @Override
                    public void range(RangeRequest request, io.grpc.stub.StreamObserver<io.etcd.jetcd.api.RangeResponse> out) {
                        out.onNext(io.etcd.jetcd.api.RangeResponse.getDefaultInstance());
                        out.onCompleted();
                    }
                }).build().start();
        try {
            for (int c = 0; c < 20; c++) {
                ManagedChannel warm = NettyChannelBuilder.forTarget("127.0.0.1:" + own.getPort()).usePlaintext().build();
                for (int i = 0; i < 50; i++) KVGrpc.newBlockingStub(warm).withDeadlineAfter(10, TimeUnit.SECONDS).withWaitForReady().range(r);
                warm.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        } finally {
            own.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        RangeRequest r = RangeRequest.newBuilder().setKey(ByteString.copyFrom(args[1], StandardCharsets.UTF_8)).build();
        File log = new File(args[2]);
        warmClient(r);
        ManagedChannel ch = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        try {
            KVGrpc.newBlockingStub(ch).withDeadlineAfter(200, TimeUnit.MILLISECONDS).range(r); // nothing listens yet
        } catch (StatusRuntimeException e) {
            // expected: UNAVAILABLE
        }
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(Arrays.copyOfRange(args, 3, args.length)).redirectErrorStream(false)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(log).start();
        try {
            long deadline = t0 + TimeUnit.SECONDS.toNanos(600);
            // The port is probed with a plain connect every 2 ms (a refused connect costs microseconds; a failed gRPC
            // call, with its status and stack, costs this JVM a share of the 2 cores the process measured needs), then
            // the Range is asked, waiting for the channel to be ready.
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) throw new IllegalStateException("the command ended (exit " + p.exitValue() + "): " + log);
                if (listening(endpoint)) {
                    ch.resetConnectBackoff();
                    try {
                        KVGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).withWaitForReady().range(r);
                        System.out.printf("%.3f%n", (System.nanoTime() - t0) / 1e9);
                        return;
                    } catch (StatusRuntimeException e) {
                        // the port opened, the call did not answer (yet): probe again
                    }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            }
            throw new IllegalStateException("no answer in 600 s");
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            ch.shutdownNow();
        }
    }
}
