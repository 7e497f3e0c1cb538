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
 * Usage: MirrorBench SOURCE TARGET_MIRROR TARGET_WALMIGRATE KEYS RATE SECONDS WALMIGRATE ETCDCTL WORKDIR
 */
public final class MirrorBench {
    private MirrorBench() {
    }

    public static void main(String[] a) throws Exception {
        String src = a[0];
        String mirrorTarget = a[1];
        String walkitTarget = a[2];
        int keys = Integer.parseInt(a[3]);
        int rate = Integer.parseInt(a[4]);
        int seconds = Integer.parseInt(a[5]);
        String walmigrate = a[6];
        String etcdctl = a[7];
        Path work = Path.of(a[8]);
        Files.createDirectories(work);
        try (Client s = client(src); Client tm = client(mirrorTarget); Client tw = client(walkitTarget)) {
            load(s, keys);
            System.err.printf("MirrorBench: %,d keys loaded into the source%n", keys);

            // make-mirror: its copy, then the load while it follows, then until its target holds the last write.
            long t0 = System.nanoTime();
            ProcessBuilder mpb = new ProcessBuilder(etcdctl, "make-mirror", "--endpoints", src, "--prefix", "/registry/", mirrorTarget)
                    .redirectErrorStream(true).redirectOutput(work.resolve("make-mirror.out").toFile());
            mpb.environment().put("ETCDCTL_API", "3");
            Process mirror = mpb.start();
            waitFor(tm, keys, mirror, work.resolve("make-mirror.out"));
            double mirrorCopy = (System.nanoTime() - t0) / 1e9;
            System.err.printf("MirrorBench: make-mirror copied in %.2f s%n", mirrorCopy);
            int n = rate * seconds;
            long[] sentMirror = new long[n];
            long[] atMirror = new long[n];
            Watch.Watcher wm = watch(tm, "/registry/load-a/", atMirror);
            Thread.sleep(2000); // the copy's end behind it: the lag under a steady load, not the switch to following
            double mirrorCpu0 = cpu(mirror);
            long stopped = load(s, "/registry/load-a/", rate, sentMirror);
            double mirrorCpu = cpu(mirror) - mirrorCpu0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (atMirror[n - 1] == 0 && System.nanoTime() < until) Thread.sleep(1);
            double mirrorCut = (atMirror[n - 1] - stopped) / 1e9;
            wm.close();
            mirror.destroy();
            mirror.waitFor();

            // walmigrate: the same, alone on the machine (make-mirror stopped), then its cut-over: drained and verified.
            Path cut = work.resolve("cutover");
            Files.deleteIfExists(cut);
            t0 = System.nanoTime();
            Process walkit = new ProcessBuilder(walmigrate, "etcd", "--source-endpoints", src, "--endpoints", walkitTarget, "--prefix", "/registry/",
                    "--follow", "--cutover", cut.toString(), "-w", "json").redirectOutput(work.resolve("walmigrate.json").toFile())
                    .redirectError(work.resolve("walmigrate.err").toFile()).start();
            waitFor(tw, keys, walkit, work.resolve("walmigrate.err"));
            double walkitCopy = (System.nanoTime() - t0) / 1e9;
            System.err.printf("MirrorBench: walmigrate copied in %.2f s%n", walkitCopy);
            long[] sent = new long[n];
            long[] atWalkit = new long[n];
            Watch.Watcher ww = watch(tw, "/registry/load-b/", atWalkit);
            Thread.sleep(2000);
            double walkitCpu0 = cpu(walkit);
            load(s, "/registry/load-b/", rate, sent);
            double walkitCpu = cpu(walkit) - walkitCpu0;
            Files.createFile(cut);
            long cutStart = System.nanoTime();
            if (!walkit.waitFor(300, TimeUnit.SECONDS)) throw new IllegalStateException("walmigrate did not end at the cut-over");
            double walkitCut = (System.nanoTime() - cutStart) / 1e9;
            ww.close();

            double[] lm = lags(sentMirror, atMirror);
            double[] lw = lags(sent, atWalkit);
            System.out.printf("%-34s %12s %12s %10s%n", "etcd -> etcd, " + String.format("%,d", keys) + " keys", "make-mirror", "walmigrate", "ratio");
            System.out.printf("%-34s %12.2f %12.2f %9.1fx%n", "copy (s)", mirrorCopy, walkitCopy, mirrorCopy / walkitCopy);
            System.out.printf("%-34s %12.1f %12.1f %9.2f%n", "lag p50 (ms) at " + rate + " puts/s", lm[0], lw[0], lw[0] / lm[0]);
            System.out.printf("%-34s %12.1f %12.1f %9.2f%n", "lag p99 (ms)", lm[1], lw[1], lw[1] / lm[1]);
            System.out.printf("%-34s %12.1f %12.1f %9.2f%n", "CPU per change (ms) under the load", mirrorCpu * 1000 / n, walkitCpu * 1000 / n,
                    walkitCpu / mirrorCpu);
            System.out.printf("%-34s %12.2f %12.2f %10s%n", "cut-over (s)", mirrorCut, walkitCut, "");
            System.out.printf("%-34s %12s %12s%n", "events seen of " + n, count(atMirror), count(atWalkit));
            System.out.println("(make-mirror's cut-over: until its target holds the last write; walmigrate's: from the cut-over file to its exit, "
                    + "drained and verified: " + Files.readString(work.resolve("walmigrate.json")).replaceAll(".*\"equal\":(true|false).*", "equal=$1").strip() + ")");
        }
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

    /** RATE puts a second under {@code prefix} ({@code sent.length} of them), each answer's time in {@code sent}; when the last was answered. */
    private static long load(Client s, String prefix, int rate, long[] sent) throws Exception {
        byte[] value = new byte[700];
        new Random(1).nextBytes(value);
        long start = System.nanoTime();
        for (int i = 0; i < sent.length; i++) {
            long due = start + (long) (i * 1e9 / rate);
            for (long now; (now = System.nanoTime()) < due; ) java.util.concurrent.locks.LockSupport.parkNanos(due - now); // no core spun: 2 cores here
            s.getKVClient().put(ByteSequence.from(prefix + i, StandardCharsets.UTF_8), ByteSequence.from(value)).get();
            sent[i] = System.nanoTime();
        }
        return System.nanoTime();
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

    /** p50 and p99 of the lags in ms (an event seen before the put's answer counts 0). */
    private static double[] lags(long[] sent, long[] at) {
        double[] l = new double[sent.length];
        for (int i = 0; i < sent.length; i++) l[i] = at[i] == 0 ? Double.NaN : Math.max(0, at[i] - sent[i]) / 1e6;
        double[] ok = Arrays.stream(l).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (ok.length == 0) return new double[] {Double.NaN, Double.NaN};
        return new double[] {ok[(int) Math.ceil(ok.length * 0.5) - 1], ok[(int) Math.ceil(ok.length * 0.99) - 1]};
    }

    private static long count(long[] at) {
        return Arrays.stream(at).filter(x -> x != 0).count();
    }
}
