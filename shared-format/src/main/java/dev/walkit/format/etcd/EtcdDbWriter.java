package dev.walkit.format.etcd;

import dev.walkit.format.bbolt.BoltWriter;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes etcd's backend database as {@link EtcdDb} reads it and etcd 3.4 opens it, over {@link BoltWriter}: the
 * {@code key} bucket (each revision under its revision key, 8-byte big-endian main, {@code _}, 8-byte big-endian
 * sub, {@code t} after a tombstone; the value an mvccpb.KeyValue as etcd marshals it: fields 1–6 in order, zeros
 * left out; a tombstone's holds its key only), the {@code lease} bucket (the 8-byte big-endian ID; a leasepb.Lease
 * of ID and TTL), and the {@code meta} bucket ({@code consistent_index}; {@code finishedCompactRev} and
 * {@code scheduledCompactRev} as revision keys when there was a compaction). etcd creates the buckets it lacks
 * (members, cluster, auth, alarm) when it opens the db, and {@code etcdctl snapshot restore} writes the members.
 */
public final class EtcdDbWriter implements Closeable {
    private static final int REV_BYTES = 17;

    private final BoltWriter bolt;
    private final BoltWriter.Bucket keys;
    private long lastMain = -1;
    private long lastSub = -1;
    private long revisions;
    /** The key bucket's entries as written: what {@link #fingerprint(EtcdDb)} reads back. */
    private final Fingerprint.Builder written = new Fingerprint.Builder();

    /**
     * The key bucket's entries, each revision key and value in bucket order: their count, their bytes and a CRC-32C of
     * them (each length, then the bytes). Two equal fingerprints: the db holds, byte for byte, the revisions written.
     */
    public record Fingerprint(long entries, long bytes, long crc) {
        static final class Builder {
            private final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            private final ByteBuffer length = ByteBuffer.allocate(8);
            private long entries;
            private long bytes;

            void add(ByteBuffer b, int at, int len) {
                crc.update(length.clear().putInt(0, len).limit(4));
                crc.update(b.slice(at, len));
                bytes += len;
            }

            void add(byte[] b) {
                add(ByteBuffer.wrap(b), 0, b.length);
            }

            Fingerprint done() {
                return new Fingerprint(entries, bytes, crc.getValue());
            }
        }
    }

    private EtcdDbWriter(BoltWriter bolt) throws IOException {
        this.bolt = bolt;
        this.keys = bolt.bucket("key");
    }

    /** Creates {@code path} (it must not exist) for a db to be written into. */
    public static EtcdDbWriter create(Path path) throws IOException {
        BoltWriter b = BoltWriter.create(path);
        try {
            return new EtcdDbWriter(b);
        } catch (IOException | RuntimeException e) {
            b.close();
            throw e;
        }
    }

    /** A put at revision {@code main}.{@code sub}; revisions in ascending order, each once. */
    public void put(long main, long sub, byte[] key, long createRevision, long version, byte[] value, long lease) throws IOException {
        entry(revisionKey(main, sub, false), keyValue(key, createRevision, main, version, value, lease));
    }

    /** A delete (etcd's tombstone) at revision {@code main}.{@code sub}. */
    public void tombstone(long main, long sub, byte[] key) throws IOException {
        entry(revisionKey(main, sub, true), keyValue(key, 0, 0, 0, null, 0));
    }

    private void entry(byte[] revisionKey, byte[] value) throws IOException {
        keys.put(revisionKey, value);
        written.add(revisionKey);
        written.add(value);
        written.entries++;
        revisions++;
    }

    /** The fingerprint of the key bucket as written. */
    public Fingerprint fingerprint() {
        return written.done();
    }

    /**
     * The fingerprint of {@code db}'s key bucket as its tree reads (through {@link dev.walkit.format.bbolt.BoltFile}, every
     * length checked against the file); what a writer's read-back compares with {@link #fingerprint()}.
     */
    public static Fingerprint fingerprint(EtcdDb db) throws IOException {
        Fingerprint.Builder b = new Fingerprint.Builder();
        dev.walkit.format.bbolt.BoltFile.BucketRef key = db.bolt().bucket("key");
        if (key == null) return b.done();
        db.bolt().walk(key, (p, k, kl, v, vl, bucket) -> {
            b.add(p, k, kl);
            b.add(p, v, vl);
            b.entries++;
        });
        return b.done();
    }

    /** The revisions written. */
    public long revisions() {
        return revisions;
    }

    /** The sub revision the next entry at main revision {@code main} takes: 0, or one past the last written at it. */
    public long nextSub(long main) {
        return main == lastMain ? lastSub + 1 : 0;
    }

    /** The last main revision written (-1: none). */
    public long lastRevision() {
        return lastMain;
    }

    private byte[] revisionKey(long main, long sub, boolean tombstone) {
        if (main < lastMain || (main == lastMain && sub <= lastSub)) {
            throw new IllegalArgumentException("revision " + main + "." + sub + " after " + lastMain + "." + lastSub);
        }
        lastMain = main;
        lastSub = sub;
        ByteBuffer b = ByteBuffer.allocate(REV_BYTES + (tombstone ? 1 : 0)); // big-endian, as etcd's revToBytes
        b.putLong(main).put((byte) '_').putLong(sub);
        if (tombstone) b.put((byte) 't');
        return b.array();
    }

    /** mvccpb.KeyValue as gogoproto marshals it: key 1, create_revision 2, mod_revision 3, version 4, value 5, lease 6. */
    static byte[] keyValue(byte[] key, long create, long mod, long version, byte[] value, long lease) {
        ByteArrayOutputStream o = new ByteArrayOutputStream(key.length + (value == null ? 0 : value.length) + 40);
        bytes(o, 1, key);
        varint(o, 2, create);
        varint(o, 3, mod);
        varint(o, 4, version);
        if (value != null) bytes(o, 5, value);
        varint(o, 6, lease);
        return o.toByteArray();
    }

    private static void bytes(ByteArrayOutputStream o, int field, byte[] b) {
        if (b.length == 0) return;
        raw(o, (field << 3) | 2);
        raw(o, b.length);
        o.write(b, 0, b.length);
    }

    private static void varint(ByteArrayOutputStream o, int field, long v) {
        if (v == 0) return;
        raw(o, field << 3);
        raw(o, v);
    }

    private static void raw(ByteArrayOutputStream o, long v) {
        while ((v & ~0x7FL) != 0) {
            o.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        o.write((int) v);
    }

    /**
     * Writes the lease and meta buckets and the pages that close the file: {@code leases} (ID → TTL in seconds), the
     * compaction at {@code compactRevision} (0: none), {@code consistentIndex} (below 0: not written). Returns the
     * file's size; nothing is forced to disk.
     */
    public long finish(Map<Long, Long> leases, long compactRevision, long consistentIndex) throws IOException {
        BoltWriter.Bucket lease = bolt.bucket("lease");
        java.util.TreeMap<byte[], byte[]> sorted = new java.util.TreeMap<>(java.util.Arrays::compareUnsigned);
        for (Map.Entry<Long, Long> e : leases.entrySet()) {
            ByteArrayOutputStream o = new ByteArrayOutputStream(24);
            varint(o, 1, e.getKey());
            varint(o, 2, Math.max(0, e.getValue()));
            sorted.put(ByteBuffer.allocate(8).putLong(e.getKey()).array(), o.toByteArray());
        }
        for (Map.Entry<byte[], byte[]> e : sorted.entrySet()) lease.put(e.getKey(), e.getValue());
        BoltWriter.Bucket meta = bolt.bucket("meta");
        if (consistentIndex >= 0) meta.put(ascii("consistent_index"), ByteBuffer.allocate(8).putLong(consistentIndex).array());
        if (compactRevision > 0) {
            byte[] rev = ByteBuffer.allocate(REV_BYTES).putLong(compactRevision).put((byte) '_').putLong(0).array();
            meta.put(ascii("finishedCompactRev"), rev);
            meta.put(ascii("scheduledCompactRev"), rev);
        }
        return bolt.finish(1);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        bolt.close();
    }
}
