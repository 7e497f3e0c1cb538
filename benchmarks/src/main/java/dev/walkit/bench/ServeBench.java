package dev.walkit.bench;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Reads against two etcd v3 endpoints holding the same data, interleaved in one run: a real etcd and
 * {@code waldoctor serve}. Range of one key and of 1,000 keys under a prefix, by 1 and by 32 clients (a channel
 * each, blocking unary calls, as etcd's clients make them); each round runs every case on each endpoint for a
 * few seconds; p50/p99 latency and throughput, medians over the rounds, and serve's ratio to etcd.
 * Usage: {@code ServeBench ETCD SERVE KEY PREFIX [SECONDS] [ROUNDS]}.
 */
public final class ServeBench {
    private ServeBench() {
    }

    record Result(double p50us, double p99us, double perSecond) {
    }

    public static void main(String[] args) throws Exception {
        String etcd = args[0];
        String serve = args[1];
        RangeRequest one = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(args[2])).build();
        RangeRequest prefix = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(args[3])).setRangeEnd(end(args[3])).setLimit(1000).build();
        int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 3;
        for (String ep : List.of(etcd, serve)) {
            ManagedChannel ch = channel(ep);
            RangeResponse r = call(ch, prefix);
            if (r.getKvsCount() != 1000) throw new IllegalStateException(ep + ": " + r.getKvsCount() + " keys under " + args[3] + ", want 1000");
            if (call(ch, one).getKvsCount() != 1) throw new IllegalStateException(ep + ": no key " + args[2]);
            ch.shutdownNow();
        }
        String[] cases = {"one key, 1 client", "one key, 32 clients", "1,000 keys, 1 client", "1,000 keys, 32 clients"};
        RangeRequest[] requests = {one, one, prefix, prefix};
        int[] clients = {1, 32, 1, 32};
        List<List<Result>> results = new ArrayList<>();
        for (int i = 0; i < cases.length * 2; i++) results.add(new ArrayList<>());
        for (int round = 0; round < rounds; round++) {
            for (int c = 0; c < cases.length; c++) {
                // Interleaved: etcd then serve, then the next case; the order swaps each round.
                for (int k = 0; k < 2; k++) {
                    int which = (round % 2 == 0) ? k : 1 - k;
                    results.get(c * 2 + which).add(run(which == 0 ? etcd : serve, requests[c], clients[c], seconds));
                }
            }
        }
        System.out.printf("%d rounds of %d s per case and endpoint, medians; latency in µs%n", rounds, seconds);
        System.out.printf("%-24s %12s %10s %12s %10s %12s %12s %9s %9s%n", "case", "etcd p50", "etcd p99", "serve p50", "serve p99",
                "etcd req/s", "serve req/s", "p50 ×", "req/s ×");
        for (int c = 0; c < cases.length; c++) {
            Result e = median(results.get(c * 2));
            Result s = median(results.get(c * 2 + 1));
            System.out.printf("%-24s %12.0f %10.0f %12.0f %10.0f %12.0f %12.0f %9.2f %9.2f%n", cases[c], e.p50us(), e.p99us(), s.p50us(), s.p99us(),
                    e.perSecond(), s.perSecond(), s.p50us() / e.p50us(), s.perSecond() / e.perSecond());
        }
        System.out.println("p50 ×: serve's latency over etcd's (below 1: serve is faster); req/s ×: serve's throughput over etcd's (above 1: faster)");
        System.exit(0);
    }

    private static ByteString end(String prefix) {
        byte[] p = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] e = Arrays.copyOf(p, p.length);
        e[e.length - 1]++;
        return ByteString.copyFrom(e);
    }

    private static ManagedChannel channel(String endpoint) {
        return NettyChannelBuilder.forTarget(endpoint).usePlaintext().maxInboundMessageSize(64 << 20).build();
    }

    private static RangeResponse call(ManagedChannel ch, RangeRequest r) {
        return KVGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS).range(r);
    }

    private static Result median(List<Result> rs) {
        double[] a = rs.stream().mapToDouble(Result::p50us).sorted().toArray();
        double[] b = rs.stream().mapToDouble(Result::p99us).sorted().toArray();
        double[] c = rs.stream().mapToDouble(Result::perSecond).sorted().toArray();
        return new Result(a[a.length / 2], b[b.length / 2], c[c.length / 2]);
    }

    /** {@code clients} threads, a channel each, calling for {@code seconds} after a one-second warm-up. */
    private static Result run(String endpoint, RangeRequest request, int clients, int seconds) throws Exception {
        List<ManagedChannel> channels = new ArrayList<>();
        for (int i = 0; i < clients; i++) channels.add(channel(endpoint));
        for (ManagedChannel ch : channels) call(ch, request); // connected
        long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        long[][] latencies = new long[clients][];
        int[] counts = new int[clients];
        CountDownLatch done = new CountDownLatch(clients);
        for (int i = 0; i < clients; i++) {
            int me = i;
            Thread t = new Thread(() -> {
                long[] lat = new long[1 << 16];
                int n = 0;
                KVGrpc.KVBlockingStub stub = KVGrpc.newBlockingStub(channels.get(me));
                for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                    long t0 = System.nanoTime();
                    stub.withDeadlineAfter(30, TimeUnit.SECONDS).range(request);
                    long t1 = System.nanoTime();
                    if (t0 < warmEnd) continue;
                    if (n == lat.length) lat = Arrays.copyOf(lat, n * 2);
                    lat[n++] = t1 - t0;
                }
                latencies[me] = lat;
                counts[me] = n;
                done.countDown();
            });
            t.setDaemon(true);
            t.start();
        }
        done.await();
        for (ManagedChannel ch : channels) ch.shutdownNow();
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < clients; i++) {
            System.arraycopy(latencies[i], 0, all, at, counts[i]);
            at += counts[i];
        }
        Arrays.sort(all);
        return new Result(all[total / 2] / 1e3, all[(int) (total * 0.99)] / 1e3, total / (double) seconds);
    }
}
