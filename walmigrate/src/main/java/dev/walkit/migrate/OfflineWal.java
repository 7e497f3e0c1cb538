package dev.walkit.migrate;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.Wal;
import dev.walkit.format.WalWriter;
import dev.walkit.format.output.Durable;
import dev.walkit.format.output.OutputDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code walmigrate kine --out-wal DIR}: kine's live set as a v2 WAL in snapshot form (§6), no server
 * needed — a marker at kine's revision and one SNAPSHOT record per live key, in key order; kine's TTL
 * stands as the lease ID (kine's lease ID is its TTL). Written to a temp file, fsynced, renamed, the directory fsynced.
 */
public final class OfflineWal {
    private OfflineWal() {
    }

    /** Why {@code dir} cannot take the output (DIR/wal exists: never overwritten), or null. */
    static String refusal(Path dir) {
        Path target = dir.resolve(Wal.WAL_FILE);
        return Files.exists(target) ? target + " exists: choose an empty --out-wal directory" : null;
    }

    /** What was written: the number of keys, and what an earlier run that crashed had left and was put right. */
    public record Written(long keys, List<String> cleanedUp) {
    }

    /**
     * Writes {@code dir/wal} through {@link OutputDir}: under its lock, an earlier crashed run's temp files removed,
     * published by one durable rename; a failure leaves DIR as it was (not there, if this run made it).
     */
    public static Written write(KeySource source, Path dir, Instant now) throws IOException {
        OutputDir out;
        try {
            out = OutputDir.open(dir);
        } catch (OutputDir.Busy b) {
            throw new IOException("another run (pid " + b.holder() + ") is writing into " + dir.toAbsolutePath().normalize()
                    + ": wait for it to finish, or choose another --out-wal");
        }
        try (out) {
            String refusal = refusal(out.dir());
            if (refusal != null) throw new IOException(refusal); // a wal that appeared since the command's own check
            // The marker counts the records, so the keys are spooled to a temp WAL first (streamed, not held).
            Path body = out.temp("wal.body");
            Path temp = out.temp(Wal.WAL_FILE);
            long n = 0;
            try (WalWriter w = WalWriter.create(body)) {
                while (source.hasNext()) {
                    SourceKey k = source.next();
                    w.append(new KeyValue(Flags.SNAPSHOT, k.key(), k.createRevision(), k.modRevision(), k.version(), k.value(), k.lease()));
                    n++;
                }
            }
            try (WalWriter w = WalWriter.create(temp)) {
                w.append(RecordEncoder.snapshotMarker(source.revision(), n));
            }
            try (var o = Files.newOutputStream(temp, StandardOpenOption.APPEND)) {
                Files.copy(body, o);
            }
            out.discard(body);
            Durable.fsync(temp);
            out.publish(Map.of(Wal.WAL_FILE, temp), now);
            return new Written(n, out.cleanedUp());
        }
    }
}
