package dev.walkit.testdata;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.WalWriter;
import dev.walkit.format.replay.SnapshotPrefixWriter;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A store's WAL written as the store writes it, for tests that follow a live log: each transaction appended whole
 * (its records, TXN_CONT on all but the last), flushed and fsynced; a compaction as the store's (the live keys as a
 * snapshot prefix at the revision, into {@code wal.compact}, fsynced, renamed over {@code wal}). What the store
 * serves is kept beside it ({@link #live}), to compare with.
 */
public final class LiveWal implements AutoCloseable {
    /** A key as the store serves it. */
    public record Held(byte[] value, long createRevision, long modRevision, long version, long lease) {
    }

    /** One operation of a transaction: a put (value non-null) or a delete. */
    public record Op(String key, byte[] value, long lease) {
        public static Op put(String key, String value, long lease) {
            return new Op(key, value.getBytes(StandardCharsets.UTF_8), lease);
        }

        public static Op delete(String key) {
            return new Op(key, null, 0);
        }
    }

    private final Path wal;
    private final TreeMap<String, Held> live = new TreeMap<>();
    private final RecordEncoder encoder = new RecordEncoder();
    private FileOutputStream out;
    private long revision;

    private LiveWal(Path wal) throws IOException {
        this.wal = wal;
        this.out = new FileOutputStream(wal.toFile(), true);
    }

    /** A new, empty log at {@code wal}. */
    public static LiveWal create(Path wal) throws IOException {
        Files.deleteIfExists(wal);
        Files.createFile(wal);
        return new LiveWal(wal);
    }

    public Path path() {
        return wal;
    }

    public long revision() {
        return revision;
    }

    /** What the store serves now: key → its value, revisions, version and lease. */
    public synchronized Map<String, Held> live() {
        return new TreeMap<>(live);
    }

    public synchronized long put(String key, String value, long lease) throws IOException {
        return txn(List.of(Op.put(key, value, lease)));
    }

    public synchronized long delete(String key) throws IOException {
        return txn(List.of(Op.delete(key)));
    }

    /** One transaction of {@code ops} (each key at most once) at the next revision; a delete of an absent key writes nothing. */
    public synchronized long txn(List<Op> ops) throws IOException {
        long rev = revision + 1;
        List<KeyValue> records = new ArrayList<>();
        for (Op op : ops) {
            byte[] key = op.key().getBytes(StandardCharsets.UTF_8);
            Held was = live.get(op.key());
            if (op.value() == null) {
                if (was == null) continue;
                records.add(KeyValue.delete(key, rev));
            } else {
                long create = was == null ? rev : was.createRevision();
                long version = was == null ? 1 : was.version() + 1;
                records.add(KeyValue.put(key, create, rev, version, op.value(), op.lease()));
            }
        }
        if (records.isEmpty()) return revision;
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < records.size(); i++) {
            KeyValue kv = records.get(i);
            if (i < records.size() - 1) kv = kv.withFlags(kv.flags() | Flags.TXN_CONT);
            b.write(encoder.encode(kv));
        }
        out.write(b.toByteArray());
        out.flush();
        out.getFD().sync();
        revision = rev;
        for (KeyValue kv : records) {
            String k = new String(kv.key(), StandardCharsets.UTF_8);
            if (Flags.isDelete(kv.flags())) live.remove(k);
            else live.put(k, new Held(kv.value(), kv.createRevision(), kv.modRevision(), kv.version(), kv.lease()));
        }
        return rev;
    }

    /** The store's compaction: the live keys at the current revision as a snapshot prefix, renamed over the log. */
    public synchronized void compact() throws IOException {
        Path next = wal.resolveSibling(wal.getFileName() + ".compact");
        try (WalWriter w = WalWriter.create(next)) {
            SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(w::append, revision, live.size());
            List<Map.Entry<String, Held>> keys = new ArrayList<>(live.entrySet());
            keys.sort((a, c) -> Arrays.compareUnsigned(a.getKey().getBytes(StandardCharsets.UTF_8), c.getKey().getBytes(StandardCharsets.UTF_8)));
            for (Map.Entry<String, Held> e : keys) {
                Held h = e.getValue();
                p.append(KeyValue.put(e.getKey().getBytes(StandardCharsets.UTF_8), h.createRevision(), h.modRevision(), h.version(), h.value(), h.lease()));
            }
            p.end();
            w.sync();
        }
        Files.move(next, wal, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        out.close();
        out = new FileOutputStream(wal.toFile(), true);
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
