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
 * are warm before the clock starts, so only the served process's own start counts. Prints the seconds.
 * Usage: FirstAnswer HOST:PORT KEY STDERR-FILE COMMAND...
 */
public final class FirstAnswer {
    private FirstAnswer() {
    }

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        RangeRequest r = RangeRequest.newBuilder().setKey(ByteString.copyFrom(args[1], StandardCharsets.UTF_8)).build();
        File log = new File(args[2]);
        ManagedChannel ch = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        try {
            KVGrpc.newBlockingStub(ch).withDeadlineAfter(200, TimeUnit.MILLISECONDS).range(r); // warms the client; nothing listens yet
        } catch (StatusRuntimeException e) {
            // expected: UNAVAILABLE
        }
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(Arrays.copyOfRange(args, 3, args.length)).redirectErrorStream(false)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(log).start();
        try {
            long deadline = t0 + TimeUnit.SECONDS.toNanos(600);
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) throw new IllegalStateException("the command ended (exit " + p.exitValue() + "): " + log);
                ch.resetConnectBackoff();
                try {
                    KVGrpc.newBlockingStub(ch).withDeadlineAfter(2, TimeUnit.SECONDS).range(r);
                    System.out.printf("%.3f%n", (System.nanoTime() - t0) / 1e9);
                    return;
                } catch (StatusRuntimeException e) {
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // polls every 2 ms: leaves the cores to the process measured
                }
            }
            throw new IllegalStateException("no answer in 600 s");
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            ch.shutdownNow();
        }
    }
}
