package dev.walkit.migrate;

import dev.walkit.cli.LeasesFile;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.Wal;
import dev.walkit.format.WalWriter;
import dev.walkit.format.output.Durable;
import dev.walkit.format.output.OutputDir;
import dev.walkit.format.replay.SnapshotPrefixWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code walmigrate kine|etcd-db --out-wal DIR}: a source's live set as a v2 WAL in snapshot form (§6), no server
 * needed — a marker at the source's revision and one SNAPSHOT record per live key, in key order; kine's TTL
 * stands as the lease ID (kine's lease ID is its TTL), an etcd db's lease IDs stay. Beside it {@code leases.json}
 * with each lease's TTL ({@link KeySource#ttlOf}: kine's, the etcd lease bucket's, else --lease-ttl), as
 * walrecover writes the pair. Written to temp files, fsynced, renamed (leases.json first, wal last), DIR fsynced.
 */
public final class OfflineWal {
    private OfflineWal() {
    }

    /** Why {@code dir} cannot take the output (DIR/wal exists: never overwritten), or null. */
    static String refusal(Path dir) {
        Path target = dir.resolve(Wal.WAL_FILE);
        return Files.exists(target) ? target + " exists: choose an empty --out-wal directory" : null;
    }

    /**
     * What was written: the number of keys, what an earlier run that crashed had left and was put right, the output's
     * revision, and what the output could not keep as the source had it.
     */
    public record Written(long keys, List<String> cleanedUp, long revision, List<String> notes) {
        public Written {
            cleanedUp = List.copyOf(cleanedUp);
            notes = List.copyOf(notes);
        }
    }

    /**
     * Writes {@code dir/wal} through {@link OutputDir}: under its lock, an earlier crashed run's temp files removed,
     * published by one durable rename; a failure leaves DIR as it was (not there, if this run made it).
     */
    public static Written write(KeySource source, Path dir, long leaseTtl, Instant now) throws IOException {
        try (Staged s = stage(source, dir, leaseTtl, false)) {
            return s.publish(now);
        }
    }

    /**
     * The snapshot of {@code source} written into a temp file in {@code dir} (locked), not yet published; with
     * {@code following}, each key's create revision, version and lease are kept so that a follow can append its
     * transactions ({@link Staged#append}) as the store would have written them.
     */
    static Staged stage(KeySource source, Path dir, long leaseTtl, boolean following) throws IOException {
        OutputDir out;
        try {
            out = OutputDir.open(dir);
        } catch (OutputDir.Busy b) {
            throw new IOException("another run (pid " + b.holder() + ") is writing into " + dir.toAbsolutePath().normalize()
                    + ": wait for it to finish, or choose another --out-wal");
        }
        if (following) out.finishOnSignal(); // a signal is the follow's cut-over: it publishes, then exits
        try {
            // An earlier run's switch finished just now left its own output: the same command run again replaces it
            // (kept as NAME.broken.*); anything else in DIR is never written over.
            String refusal = out.finishedEarlierSwitch() ? null : refusal(out.dir());
            if (refusal != null) throw new IOException(refusal); // a wal that appeared since the command's own check
            // The marker counts the records, so the keys are spooled to a temp WAL first (streamed, not held).
            Path body = out.temp("wal.body");
            Path temp = out.temp(Wal.WAL_FILE);
            long n;
            Staged s = new Staged(out, temp, leaseTtl, source.revision(), following);
            try (WalWriter w = WalWriter.create(body)) {
                SnapshotPrefixWriter records = SnapshotPrefixWriter.recordsOnly(w::append);
                while (source.hasNext()) {
                    SourceKey k = source.next();
                    if (k.lease() > 0) s.leases.computeIfAbsent(k.lease(), id -> new long[] {source.ttlOf(id, leaseTtl), 0})[1]++;
                    records.append(new KeyValue(Flags.SNAPSHOT, k.key(), k.createRevision(), k.modRevision(), k.version(), k.value(), k.lease()));
                    if (following) s.keys.put(ByteBuffer.wrap(k.key()), new long[] {k.createRevision(), k.version(), k.lease()});
                }
                n = records.written();
            }
            try (WalWriter w = WalWriter.create(temp)) {
                w.append(SnapshotPrefixWriter.marker(source.revision(), n));
            }
            try (var o = Files.newOutputStream(temp, StandardOpenOption.APPEND)) {
                Files.copy(body, o);
            }
            out.discard(body);
            s.snapshotKeys = n;
            return s;
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** A WAL written into its directory's temp file, published (renamed in, with leases.json) by {@link #publish}. */
    static final class Staged implements StagedOutput {
        private final OutputDir out;
        private final Path temp;
        private final long leaseTtl;
        /** Lease ID → {TTL, live keys}. */
        final java.util.SortedMap<Long, long[]> leases = new java.util.TreeMap<>();
        /** Following: each live key → {create revision, version, lease}. */
        final Map<ByteBuffer, long[]> keys = new java.util.HashMap<>();
        private final boolean following;
        private final RecordEncoder encoder = new RecordEncoder();
        private java.io.FileOutputStream appending;
        private long revision;
        private long snapshotKeys;

        private Staged(OutputDir out, Path temp, long leaseTtl, long revision, boolean following) {
            this.out = out;
            this.temp = temp;
            this.leaseTtl = leaseTtl;
            this.revision = revision;
            this.following = following;
        }

        /**
         * The changes appended as one transaction of the store (TXN_CONT on all its records but the last), each put with
         * the key's create revision and next version, as the store writes them; a delete of a key the output does not
         * hold writes nothing. The lease is the source's ({@code ttlOf} gives its TTL for leases.json).
         */
        @Override
        public void append(long revision, List<Change> changes, Migrator.Leases.TtlOf ttlOf) throws IOException {
            if (!following) throw new IllegalStateException("staged without following");
            List<KeyValue> records = new java.util.ArrayList<>();
            for (Change c : changes) {
                ByteBuffer k = ByteBuffer.wrap(c.key());
                long[] was = keys.get(k);
                if (c.delete()) {
                    if (was == null) continue;
                    keys.remove(k);
                    records.add(KeyValue.delete(c.key(), revision));
                } else {
                    long[] now = was == null ? new long[] {revision, 1, c.lease()} : new long[] {was[0], was[1] + 1, c.lease()};
                    keys.put(k, now);
                    if (c.lease() > 0) leases.computeIfAbsent(c.lease(), id -> new long[] {ttlOf.ttlOf(id, leaseTtl), 0});
                    records.add(KeyValue.put(c.key(), now[0], revision, now[1], c.value(), c.lease()));
                }
            }
            if (records.isEmpty()) return;
            if (appending == null) appending = new java.io.FileOutputStream(temp.toFile(), true);
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < records.size(); i++) {
                KeyValue kv = records.get(i);
                b.write(encoder.encode(i < records.size() - 1 ? kv.withFlags(kv.flags() | Flags.TXN_CONT) : kv));
            }
            appending.write(b.toByteArray());
            this.revision = revision;
        }

        @Override
        public long keys() {
            return following ? keys.size() : snapshotKeys;
        }

        @Override
        public KeySource readBack() throws IOException {
            sync();
            return WalSource.open(temp);
        }

        @Override
        public long storedLease(long sourceLease, Migrator.Leases.TtlOf ttlOf) {
            return sourceLease;
        }

        /** Makes the staged WAL durable (its appends included) without publishing it. */
        void sync() throws IOException {
            if (appending != null) {
                appending.close();
                appending = null;
            }
            Durable.fsync(temp);
        }

        /** fsyncs the WAL, writes leases.json, and renames the pair in (leases.json first, wal last), DIR fsynced. */
        @Override
        public Written publish(Instant now) throws IOException {
            sync();
            if (following) { // the live keys per lease, as they stand now
                for (long[] l : leases.values()) l[1] = 0;
                for (long[] k : keys.values()) if (k[2] > 0) leases.computeIfAbsent(k[2], id -> new long[] {leaseTtl, 0})[1]++;
                leases.values().removeIf(l -> l[1] == 0);
            }
            // The pair, as walrecover writes it: leases.json first, wal last (whenever DIR/wal exists, its leases are beside it).
            Path leasesTemp = out.temp(LeasesFile.NAME);
            Files.writeString(leasesTemp, LeasesFile.json(leaseTtl, leases.isEmpty() ? 1 : leases.lastKey() + 1, leases));
            Durable.fsync(leasesTemp);
            Map<String, Path> pair = new java.util.LinkedHashMap<>();
            pair.put(LeasesFile.NAME, leasesTemp);
            pair.put(Wal.WAL_FILE, temp);
            out.publish(pair, now);
            return new Written(following ? keys.size() : snapshotKeys, out.cleanedUp(), revision, List.of());
        }

        @Override
        public void close() throws IOException {
            try {
                if (appending != null) appending.close();
            } finally {
                out.close();
            }
        }
    }
}
