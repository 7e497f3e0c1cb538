package dev.walkit.testdata;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.KeyIndex;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Writes realistic Kubernetes-shaped v2 logs of any size, deterministically from a seed, and keeps
 * its own model of the state so that tests can compare a replay with what was written:
 * node lease heartbeats, events created with a lease and deleted, multi-op transactions over
 * configmaps, secrets deleted and created again, pods and jobs with the real stored protobuf values
 * ({@code k8s\0} + runtime.Unknown) and custom resources as JSON, and now and then a large value.
 * With {@link Options#compacted()} the log starts with a snapshot prefix (§6) of the state at the
 * compact revision, followed by the tail.
 */
public final class K8sWalGenerator {
    /**
     * @param seed        the random seed (same seed, same bytes)
     * @param targetBytes stop once the log reaches this size
     * @param nodes       nodes sending lease heartbeats
     * @param compacted   write a snapshot prefix of the first half, then the tail
     */
    public record Options(long seed, long targetBytes, int nodes, boolean compacted) {
        public static Options of(long seed, long targetBytes) {
            return new Options(seed, targetBytes, 20, false);
        }

        public Options withCompacted(boolean c) {
            return new Options(seed, targetBytes, nodes, c);
        }
    }

    /** A live key of the model. */
    public record Live(long createRevision, long modRevision, long version, long lease, byte[] value) {
    }

    private static final byte[] POD = resource("storage-pod.bin");
    private static final byte[] JOB = resource("storage-job.bin");
    private static final byte[] POD_JSON = resource("json-pod.json");

    private final Options options;
    private final Random rnd;
    private final TreeMap<byte[], Live> live = new TreeMap<>(KeyIndex.KEY_ORDER);
    private long revision;
    private long compactRevision;
    private long records;
    private final List<byte[]> events = new ArrayList<>();
    private final List<List<KeyValue>> written = new ArrayList<>();
    private boolean keepTransactions;

    public K8sWalGenerator(Options options) {
        this.options = options;
        this.rnd = new Random(options.seed());
    }

    private static byte[] resource(String name) {
        try (InputStream in = K8sWalGenerator.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Keep every transaction written (for tests that compute an expected state); off by default. */
    public K8sWalGenerator keepTransactions() {
        this.keepTransactions = true;
        return this;
    }

    /** The transactions written after any snapshot prefix, in order (with {@link #keepTransactions()}). */
    public List<List<KeyValue>> transactions() {
        return written;
    }

    /** The log's bytes (written through a temporary file, as {@link #write} writes it). */
    public byte[] bytes() throws IOException {
        Path tmp = Files.createTempFile("walkit-generated", ".wal");
        try {
            Files.delete(tmp);
            write(tmp);
            return Files.readAllBytes(tmp);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes the log to {@code path} (a new file). */
    public void write(Path path) throws IOException {
        try (WalWriter w = WalWriter.create(path)) {
            if (options.compacted()) {
                // Build history in memory only, then write its snapshot, then the tail.
                long half = options.targetBytes() / 2;
                long size = 0;
                while (size < half) size += step(null);
                compactRevision = revision;
                w.append(RecordEncoder.snapshotMarker(compactRevision, live.size()));
                records++;
                for (Map.Entry<byte[], Live> e : live.entrySet()) {
                    Live l = e.getValue();
                    w.append(new KeyValue(Flags.SNAPSHOT, e.getKey(), l.createRevision(), l.modRevision(), l.version(), l.value(), l.lease()));
                    records++;
                }
            }
            while (w.size() < options.targetBytes()) step(w);
        }
    }

    /** One transaction; returns the bytes it takes. */
    private long step(WalWriter w) throws IOException {
        revision++;
        int dice = rnd.nextInt(100);
        List<KeyValue> txn = new ArrayList<>();
        if (dice < 45) {
            txn.add(put("/registry/leases/kube-node-lease/node-" + rnd.nextInt(options.nodes()), json("{\"holderIdentity\":\"node\",\"renewTime\":\"" + revision + "\"}"), 0));
        } else if (dice < 65) {
            String key = "/registry/events/default/pod-" + rnd.nextInt(500) + "." + Long.toHexString(revision);
            events.add(bytes(key));
            txn.add(put(key, json("{\"reason\":\"Scheduled\",\"count\":" + rnd.nextInt(9) + "}"), 7000 + revision / 500));
        } else if (dice < 75 && !events.isEmpty()) {
            byte[] k = events.remove(rnd.nextInt(events.size()));
            txn.add(delete(k));
        } else if (dice < 83) {
            int n = 2 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                String key = "/registry/configmaps/ns" + rnd.nextInt(3) + "/cm-" + rnd.nextInt(40);
                if (txn.stream().anyMatch(t -> new String(t.key(), StandardCharsets.UTF_8).equals(key))) continue;
                txn.add(put(key, json("{\"data\":{\"k\":\"" + rnd.nextInt(1_000_000) + "\"}}"), 0));
            }
        } else if (dice < 88) {
            String key = "/registry/secrets/kube-system/token-" + rnd.nextInt(10);
            txn.add(live.containsKey(bytes(key)) && rnd.nextBoolean() ? delete(bytes(key)) : put(key, json("{\"data\":\"c2VjcmV0\"}"), 0));
        } else if (dice < 94) {
            txn.add(put("/registry/pods/default/pi-" + rnd.nextInt(50), POD, 0));
        } else if (dice < 97) {
            txn.add(put("/registry/jobs/default/pi-" + rnd.nextInt(10), JOB, 0));
        } else if (dice < 99) {
            txn.add(put("/registry/example.com/widgets/default/w-" + rnd.nextInt(20), POD_JSON, 0));
        } else if (rnd.nextInt(5) == 0) {
            byte[] big = new byte[16 * 1024 + rnd.nextInt(240 * 1024)];
            rnd.nextBytes(big);
            txn.add(put("/registry/configmaps/kube-system/big-" + rnd.nextInt(3), big, 0));
        }
        if (txn.isEmpty()) txn.add(put("/registry/leases/kube-node-lease/node-0", json("{}"), 0));
        long bytes = 0;
        List<KeyValue> out = new ArrayList<>();
        for (int i = 0; i < txn.size(); i++) {
            KeyValue kv = txn.get(i);
            if (i < txn.size() - 1) kv = kv.withFlags(kv.flags() | Flags.TXN_CONT);
            apply(kv);
            bytes += RecordEncoder.recordLength(kv);
            if (w != null) {
                w.append(kv);
                records++;
                out.add(kv);
            }
        }
        if (w != null && keepTransactions) written.add(out);
        return bytes;
    }

    private KeyValue put(String key, byte[] value, long lease) {
        byte[] k = bytes(key);
        Live prev = live.get(k);
        long create = prev == null ? revision : prev.createRevision();
        long version = prev == null ? 1 : prev.version() + 1;
        return KeyValue.put(k, create, revision, version, value, lease);
    }

    private KeyValue delete(byte[] key) {
        return KeyValue.delete(key, revision);
    }

    private void apply(KeyValue kv) {
        if (kv.isDelete()) live.remove(kv.key());
        else live.put(kv.key(), new Live(kv.createRevision(), kv.modRevision(), kv.version(), kv.lease(), kv.value()));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] json(String s) {
        return bytes(s);
    }

    /** The model's live keys after {@link #write}. */
    public TreeMap<byte[], Live> live() {
        return live;
    }

    public long revision() {
        return revision;
    }

    public long compactRevision() {
        return compactRevision;
    }

    /** Records written. */
    public long records() {
        return records;
    }
}
