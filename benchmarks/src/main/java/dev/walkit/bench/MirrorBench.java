package dev.walkit.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * For scripts/bench-mirror (issue 33): {@code walmigrate etcd --follow} beside {@code etcdctl make-mirror} on the same
 * source, each into its own empty etcd, in one run, one tool at a time (they do not share the CPU): KEYS keys of 1 KB are
 * loaded into the source; each tool's copy is timed until its target holds them all; then, while it follows, a steady
 * load of RATE puts a second for SECONDS: the lag is from a put's answer at the source to its event at the target
 * (watches in this process: one clock); then the cut-over: the writes stop, walmigrate's cut-over file appears and its
 * run ends (drained and verified); make-mirror has none, so its time is until its target holds the last write.
 * A third column, {@link JetcdMirror}, is the least a mirror on the JVM can be: the floor walmigrate's client stands on.
 * Usage: MirrorBench SOURCE "TARGET_MIRROR;TARGET_WALMIGRATE;TARGET_JETCD" KEYS RATE SECONDS WALMIGRATE ETCDCTL JAVA CLASSPATH WORKDIR
 */
public final class MirrorBench {
    private MirrorBench() {
    }

    /** What one tool did: its copy, the lag it kept under the load, its CPU per change, its cut-over. */
    private record Run(String name, double copySeconds, double[] lag, double cpuPerChangeMs, double cutoverSeconds, long seen, String note, double applyRate,
                       double targetMs, double targetRequests) {
    }

    /** Each number's median over one tool's runs. */
    private static Run median(List<Run> runs) {
        java.util.function.Function<java.util.function.ToDoubleFunction<Run>, Double> med = f -> {
            double[] v = runs.stream().mapToDouble(f).sorted().toArray();
            return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        };
        Run first = runs.get(0);
        double[] lag = {med.apply(r -> r.lag()[0]), med.apply(r -> r.lag()[1]), med.apply(r -> r.lag()[2])};
        return new Run(first.name(), med.apply(Run::copySeconds), lag,
                med.apply(Run::cpuPerChangeMs), med.apply(Run::cutoverSeconds), (long) (double) med.apply(r -> r.seen()),
                runs.stream().map(Run::note).distinct().reduce((x, y) -> x + ", " + y).orElse(""), med.apply(Run::applyRate),
                med.apply(Run::targetMs), med.apply(Run::targetRequests));
    }

    public static void main(String[] a) throws Exception {
        String src = a[0];
        String[] targets = a[1].split(";");
        int keys = Integer.parseInt(a[2]);
        int rate = Integer.parseInt(a[3]);
        int seconds = Integer.parseInt(a[4]);
        String walmigrate = a[5];
        String etcdctl = a[6];
        String java = a[7];
        String classPath = a[8];
        Path work = Path.of(a[9]);
        Files.createDirectories(work);
        // WALKIT_BENCH_ROUNDS=N: each tool run N times, the order rotated each round; the table shows each number's median.
        int rounds = Integer.parseInt(System.getenv().getOrDefault("WALKIT_BENCH_ROUNDS", "1"));
        List<List<Run>> byTool = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (Client s = client(src)) {
            load(s, keys);
            System.err.printf("MirrorBench: %,d keys loaded into the source%n", keys);
            ProcessBuilder mirror = new ProcessBuilder(etcdctl, "make-mirror", "--endpoints", src, "--prefix", "/registry/", targets[0]);
            mirror.environment().put("ETCDCTL_API", "3");
            Path cut = work.resolve("cutover");
            ProcessBuilder walkit = new ProcessBuilder(walmigrate, "etcd", "--source-endpoints", src, "--endpoints", targets[1], "--prefix", "/registry/",
                    "--follow", "--pipeline", System.getenv().getOrDefault("WALKIT_BENCH_PIPELINE", "64"), "--cutover", cut.toString(), "-w", "json");
            // WALKIT_BENCH_FLOOR=raw: the third column is RawMirror (grpc-java alone, callbacks on Netty's threads) instead.
            boolean raw = "raw".equals(System.getenv("WALKIT_BENCH_FLOOR"));
            ProcessBuilder floor = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-cp", classPath, (raw ? RawMirror.class : JetcdMirror.class).getName(),
                    src, "/registry/", targets[2]);
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < 3; k++) {
                    int tool = (k + round) % 3;
                    Run r = switch (tool) {
                        case 0 -> run("make-mirror", mirror, null, s, targets[0], "/registry/load-a/", keys, rate, seconds, work);
                        case 1 -> {
                            Files.deleteIfExists(cut);
                            yield run("walmigrate", walkit, cut, s, targets[1], "/registry/load-b/", keys, rate, seconds, work);
                        }
                        default -> run(raw ? "raw-mirror" : "jetcd-mirror", floor, null, s, targets[2], "/registry/load-c/", keys, rate, seconds, work);
                    };
                    byTool.get(tool).add(r);
                }
                if (rounds > 1) {
                    Run m = byTool.get(0).get(round);
                    Run w = byTool.get(1).get(round);
                    Run j = byTool.get(2).get(round);
                    System.err.printf("MirrorBench: round %d: lag p50 %.1f / %.1f / %.1f ms, the second half %.1f / %.1f / %.1f"
                            + " (make-mirror / walmigrate / %s)%n",
                            round + 1, m.lag()[0], w.lag()[0], j.lag()[0], m.lag()[2], w.lag()[2], j.lag()[2], j.name());
                }
            }
        }
        List<Run> runs = List.of(median(byTool.get(0)), median(byTool.get(1)), median(byTool.get(2)));
        if (rounds > 1) System.out.printf("(each number the median of %d rounds, the tools' order rotated each round)%n", rounds);
        Run m = runs.get(0);
        Run w = runs.get(1);
        Run j = runs.get(2);
        System.out.printf("%-36s %12s %12s %12s %14s%n", "etcd -> etcd, " + String.format("%,d", keys) + " keys", m.name(), w.name(), j.name(), "walmigrate");
        System.out.printf("%-36s %12.2f %12.2f %12.2f %7.1fx faster%n", "copy (s)", m.copySeconds(), w.copySeconds(), j.copySeconds(),
                m.copySeconds() / w.copySeconds());
        System.out.printf("%-36s %12.1f %12.1f %12.1f %14.2f%n", "lag p50 (ms) at " + rate + " puts/s", m.lag()[0], w.lag()[0], j.lag()[0], w.lag()[0] / m.lag()[0]); // ratios: walmigrate / make-mirror
        System.out.printf("%-36s %12.1f %12.1f %12.1f %14.2f%n", "lag p99 (ms)", m.lag()[1], w.lag()[1], j.lag()[1], w.lag()[1] / m.lag()[1]);
        System.out.printf("%-36s %12.1f %12.1f %12.1f %14.2f%n", "lag p50 (ms), the load's second half", m.lag()[2], w.lag()[2], j.lag()[2],
                w.lag()[2] / m.lag()[2]);
        System.out.printf("%-36s %12.2f %12.2f %12.2f %14.2f%n", "CPU per change (ms) under the load", m.cpuPerChangeMs(), w.cpuPerChangeMs(), j.cpuPerChangeMs(),
                w.cpuPerChangeMs() / m.cpuPerChangeMs());
        System.out.printf("%-36s %12.2f %12.2f %12.2f %14.2f%n", "target's time per request (ms)", m.targetMs(), w.targetMs(), j.targetMs(),
                w.targetMs() / m.targetMs());
        System.out.printf("%-36s %12.2f %12.2f %12.2f %14.2f%n", "target's requests per change", m.targetRequests(), w.targetRequests(), j.targetRequests(),
                w.targetRequests() / m.targetRequests());
        System.out.printf("%-36s %12.2f %12.2f %12.2f%n", "cut-over (s)", m.cutoverSeconds(), w.cutoverSeconds(), j.cutoverSeconds());
        System.out.printf("%-36s %12d %12d %12d%n", "events seen of " + rate * seconds, m.seen(), w.seen(), j.seen());
        System.out.printf("%-36s %12.0f %12.0f %12.0f %14.2f%n", "apply rate (changes/s) under the load", m.applyRate(), w.applyRate(), j.applyRate(),
                w.applyRate() / m.applyRate());
        System.out.println("(copy: until the target holds every key; make-mirror's and jetcd-mirror's cut-over: until the target holds the last write (NaN: "
                + "not within 120 s); "
                + "walmigrate's: from the cut-over file to its exit, drained and verified: " + w.note() + ")");
    }

    /**
     * One tool, alone on the machine: started, its copy timed until {@code target} holds the keys; then the load under
     * {@code loadPrefix} while it follows; then its cut-over: the file created when it has one (and its exit awaited),
     * else until the target holds the last write; then it is stopped.
     */
    private static Run run(String name, ProcessBuilder pb, Path cutFile, Client s, String target, String loadPrefix, int keys, int rate, int seconds,
                           Path work) throws Exception {
        Path out = work.resolve(name + ".out");
        Path err = work.resolve(name + ".err");
        try (Client t = client(target)) {
            // Every key out of the target (a round before this one left its own): each tool copies into an empty etcd.
            ByteSequence all = ByteSequence.from(new byte[] {0});
            t.getKVClient().delete(all, io.etcd.jetcd.options.DeleteOption.builder().withRange(all).build()).get(120, TimeUnit.SECONDS);
            long t0 = System.nanoTime();
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            waitFor(t, keys, p, err);
            double copy = (System.nanoTime() - t0) / 1e9;
            System.err.printf("MirrorBench: %s copied in %.2f s%n", name, copy);
            int n = rate * seconds;
            long[] sent = new long[n];
            long[] at = new long[n];
            Watch.Watcher watcher = watch(t, loadPrefix, at);
            Thread.sleep(2000); // the copy's end behind it: the lag under a steady load, not the switch to following
            double cpu0 = cpu(p);
            double[] target0 = targetTime(target);
            long loadStart = System.nanoTime();
            long stopped = load(s, loadPrefix, rate, sent);
            System.err.printf("MirrorBench: %s: the source took %,d puts in %.1f s (%.0f a second)%n", name, n, (stopped - loadStart) / 1e9,
                    n / ((stopped - loadStart) / 1e9));
            double cpu = cpu(p) - cpu0;
            double[] target1 = targetTime(target);
            double requests = target1[1] - target0[1];
            double cut;
            String note = "";
            if (cutFile != null) {
                Files.createFile(cutFile);
                long c0 = System.nanoTime();
                if (!p.waitFor(300, TimeUnit.SECONDS)) throw new IllegalStateException(name + " did not end at the cut-over");
                cut = (System.nanoTime() - c0) / 1e9;
                note = Files.readString(out).replaceAll("(?s).*\"equal\":(true|false).*", "equal=$1").strip();
            } else {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (at[n - 1] == 0 && System.nanoTime() < until) Thread.sleep(1);
                cut = at[n - 1] == 0 ? Double.NaN : (at[n - 1] - stopped) / 1e9; // NaN: the last write never reached the target
            }
            watcher.close();
            p.destroy();
            p.waitFor();
            // The load's keys leave the source again: each tool copies the same keys (the next would copy this load's too).
            s.getKVClient().delete(ByteSequence.from(loadPrefix, StandardCharsets.UTF_8), io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true).build())
                    .get(120, TimeUnit.SECONDS);
            return new Run(name, copy, lags(sent, at), cpu * 1000 / n, cut, count(at), note, applyRate(at), (target1[0] - target0[0]) * 1000 / requests,
                    requests / n);
        }
    }

    /**
     * The target etcd's own account of its write requests so far (it runs with {@code --metrics extensive}): the seconds
     * it took from each Txn or Put request's arrival to its answer (raft, the WAL's fsync, the apply), and how many.
     */
    private static double[] targetTime(String endpoint) throws Exception {
        String body = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(endpoint + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        double seconds = 0;
        double count = 0;
        for (String l : body.split("\n")) {
            if (!l.startsWith("grpc_server_handling_seconds_") || !(l.contains("grpc_method=\"Txn\"") || l.contains("grpc_method=\"Put\""))) continue;
            double v = Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
            if (l.startsWith("grpc_server_handling_seconds_sum")) seconds += v;
            else if (l.startsWith("grpc_server_handling_seconds_count")) count += v;
        }
        return new double[] {seconds, count};
    }

    /** The process's CPU time so far, in seconds. */
    private static double cpu(Process p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }

    private static Client client(String endpoint) {
        return Client.builder().endpoints(endpoint).maxInboundMessageSize(64 << 20).build();
    }

    /** KEYS keys of about 1 KiB, 128 to a transaction, 8 in flight. */
    private static void load(Client c, int keys) throws Exception {
        byte[] value = new byte[1000];
        Random r = new Random(7);
        Semaphore inFlight = new Semaphore(8);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < keys; i += 128) {
            List<Op> ops = new ArrayList<>();
            for (int k = i; k < Math.min(keys, i + 128); k++) {
                r.nextBytes(value);
                ops.add(Op.put(ByteSequence.from("/registry/configmaps/ns-" + (k % 100) + "/cm-" + k, StandardCharsets.UTF_8), ByteSequence.from(value),
                        PutOption.DEFAULT));
            }
            inFlight.acquire();
            all.add(c.getKVClient().txn().Then(ops.toArray(new Op[0])).commit().whenComplete((x, e) -> inFlight.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new)).get(600, TimeUnit.SECONDS);
    }

    private static void waitFor(Client c, int keys, Process copier, Path log) throws Exception {
        for (;;) {
            if (!copier.isAlive()) throw new IllegalStateException("the copy ended before it was done: " + Files.readString(log));
            long n = c.getKVClient().get(ByteSequence.from("/registry/configmaps/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get().getCount();
            if (n >= keys) return;
            Thread.sleep(20);
        }
    }

    /**
     * RATE puts a second under {@code prefix} ({@code sent.length} of them), each sent when it is due (not after the one
     * before it is answered: a writer at 5,000 a second outruns one round trip at a time), at most 512 unanswered; each
     * answer's time in {@code sent}; when the last was answered.
     */
    private static long load(Client s, String prefix, int rate, long[] sent) throws Exception {
        byte[] value = new byte[700];
        new Random(1).nextBytes(value);
        Semaphore unanswered = new Semaphore(512);
        List<CompletableFuture<?>> all = new ArrayList<>(sent.length);
        long start = System.nanoTime();
        for (int i = 0; i < sent.length; i++) {
            long due = start + (long) (i * 1e9 / rate);
            for (long now; (now = System.nanoTime()) < due; ) java.util.concurrent.locks.LockSupport.parkNanos(due - now); // no core spun: 2 cores here
            unanswered.acquire();
            int k = i;
            all.add(s.getKVClient().put(ByteSequence.from(prefix + i, StandardCharsets.UTF_8), ByteSequence.from(value)).whenComplete((r, e) -> {
                sent[k] = System.nanoTime();
                unanswered.release();
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture<?>[]::new)).get(600, TimeUnit.SECONDS);
        return System.nanoTime();
    }

    /** Changes a second the target took under the load: the events seen over the span from the first to the last seen. */
    private static double applyRate(long[] at) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long n = 0;
        for (long x : at) {
            if (x == 0) continue;
            first = Math.min(first, x);
            last = Math.max(last, x);
            n++;
        }
        return n < 2 ? Double.NaN : (n - 1) / ((last - first) / 1e9);
    }

    private static Watch.Watcher watch(Client c, String prefix, long[] at) {
        ConcurrentHashMap<Integer, Boolean> seen = new ConcurrentHashMap<>();
        return c.getWatchClient().watch(ByteSequence.from(prefix, StandardCharsets.UTF_8), WatchOption.builder().isPrefix(true).build(), r -> {
            long now = System.nanoTime();
            for (WatchEvent e : r.getEvents()) {
                int i = Integer.parseInt(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()));
                if (seen.putIfAbsent(i, true) == null) at[i] = now;
            }
        });
    }

    /**
     * p50 and p99 of the lags in ms (an event seen before the put's answer counts 0), then the p50 of the load's second
     * half alone (a JVM's tool compiles its path while the first seconds of the load run through it).
     */
    private static double[] lags(long[] sent, long[] at) {
        double[] all = lags(sent, at, 0);
        return new double[] {all[0], all[1], lags(sent, at, sent.length / 2)[0]};
    }

    /** p50 and p99 of the lags of the puts from {@code from} on. */
    private static double[] lags(long[] sent, long[] at, int from) {
        double[] l = new double[sent.length - from];
        for (int i = from; i < sent.length; i++) l[i - from] = at[i] == 0 ? Double.NaN : Math.max(0, at[i] - sent[i]) / 1e6;
        double[] ok = Arrays.stream(l).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (ok.length == 0) return new double[] {Double.NaN, Double.NaN};
        return new double[] {ok[(int) Math.ceil(ok.length * 0.5) - 1], ok[(int) Math.ceil(ok.length * 0.99) - 1]};
    }

    private static long count(long[] at) {
        return Arrays.stream(at).filter(x -> x != 0).count();
    }
}
