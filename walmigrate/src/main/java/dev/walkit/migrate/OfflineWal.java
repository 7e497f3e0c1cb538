package dev.walkit.migrate;

import dev.walkit.cli.LeasesFile;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.Wal;
import dev.walkit.format.WalWriter;
import dev.walkit.format.output.Durable;
import dev.walkit.format.output.OutputDir;
import dev.walkit.format.replay.SnapshotPrefixWriter;

import java.io.IOException;
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
        OutputDir out;
        try {
            out = OutputDir.open(dir);
        } catch (OutputDir.Busy b) {
            throw new IOException("another run (pid " + b.holder() + ") is writing into " + dir.toAbsolutePath().normalize()
                    + ": wait for it to finish, or choose another --out-wal");
        }
        try (out) {
            // An earlier run's switch finished just now left its own output: the same command run again replaces it
            // (kept as NAME.broken.*); anything else in DIR is never written over.
            String refusal = out.finishedEarlierSwitch() ? null : refusal(out.dir());
            if (refusal != null) throw new IOException(refusal); // a wal that appeared since the command's own check
            // The marker counts the records, so the keys are spooled to a temp WAL first (streamed, not held).
            Path body = out.temp("wal.body");
            Path temp = out.temp(Wal.WAL_FILE);
            long n = 0;
            java.util.SortedMap<Long, long[]> leases = new java.util.TreeMap<>();
            try (WalWriter w = WalWriter.create(body)) {
                SnapshotPrefixWriter records = SnapshotPrefixWriter.recordsOnly(w::append);
                while (source.hasNext()) {
                    SourceKey k = source.next();
                    if (k.lease() > 0) leases.computeIfAbsent(k.lease(), id -> new long[] {source.ttlOf(id, leaseTtl), 0})[1]++;
                    records.append(new KeyValue(Flags.SNAPSHOT, k.key(), k.createRevision(), k.modRevision(), k.version(), k.value(), k.lease()));
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
            Durable.fsync(temp);
            // The pair, as walrecover writes it: leases.json first, wal last (whenever DIR/wal exists, its leases are beside it).
            Path leasesTemp = out.temp(LeasesFile.NAME);
            Files.writeString(leasesTemp, LeasesFile.json(leaseTtl, leases.isEmpty() ? 1 : leases.lastKey() + 1, leases));
            Durable.fsync(leasesTemp);
            Map<String, Path> pair = new java.util.LinkedHashMap<>();
            pair.put(LeasesFile.NAME, leasesTemp);
            pair.put(Wal.WAL_FILE, temp);
            out.publish(pair, now);
            return new Written(n, out.cleanedUp(), source.revision(), List.of());
        }
    }
}
