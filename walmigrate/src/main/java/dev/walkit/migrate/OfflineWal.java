package dev.walkit.migrate;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.Wal;
import dev.walkit.format.WalWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code walmigrate kine --out-wal DIR}: kine's live set as a v2 WAL in snapshot form (§6), no server
 * needed — a marker at kine's revision and one SNAPSHOT record per live key, in key order; kine's TTL
 * stands as the lease ID (kine's lease ID is its TTL). Written to a temp file, fsynced, renamed.
 */
public final class OfflineWal {
    private OfflineWal() {
    }

    /** Why {@code dir} cannot take the output (DIR/wal exists: never overwritten), or null. */
    static String refusal(Path dir) {
        Path target = dir.resolve(Wal.WAL_FILE);
        return Files.exists(target) ? target + " exists: choose an empty --out-wal directory" : null;
    }

    /** Returns the number of keys written. */
    public static long write(KeySource source, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path target = dir.resolve(Wal.WAL_FILE);
        String refusal = refusal(dir);
        if (refusal != null) throw new IOException(refusal); // a wal that appeared since the command's own check
        // The marker counts the records, so the keys are spooled to a temp WAL first (streamed, not held).
        Path body = dir.resolve(".wal.body.tmp-" + ProcessHandle.current().pid());
        Path temp = dir.resolve(".wal.tmp-" + ProcessHandle.current().pid());
        long n = 0;
        try {
            try (WalWriter w = WalWriter.create(body)) {
                while (source.hasNext()) {
                    SourceKey k = source.next();
                    w.append(new KeyValue(Flags.SNAPSHOT, k.key(), k.createRevision(), k.modRevision(), k.version(), k.value(), k.lease()));
                    n++;
                }
            }
            try (WalWriter w = WalWriter.create(temp)) {
                w.append(RecordEncoder.snapshotMarker(source.revision(), n));
                w.sync();
            }
            try (var out = Files.newOutputStream(temp, java.nio.file.StandardOpenOption.APPEND)) {
                Files.copy(body, out);
            }
            try (var ch = java.nio.channels.FileChannel.open(temp, java.nio.file.StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            try (var ch = java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
                ch.force(true);
            }
            return n;
        } finally {
            Files.deleteIfExists(body);
            Files.deleteIfExists(temp);
        }
    }
}
