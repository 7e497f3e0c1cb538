package dev.walkit.migrate;

import dev.walkit.format.output.Durable;
import dev.walkit.format.output.KineOutput;
import dev.walkit.format.output.OutputDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code --out-kine DIR}: any source's live set as kine's {@code state.db} (the way back to kine), no server
 * needed: written by shared-format's {@link KineOutput} (kine's schema, one row per live key at its source revisions,
 * the lease column its TTL, kine's own rows) to a temp file in DIR, fsynced, then renamed in and DIR fsynced
 * ({@link OutputDir}); DIR/state.db is never overwritten. A follow appends kine's rows for each change ({@link Staged}).
 */
public final class OfflineKine {
    static final String FILE = KineOutput.FILE;
    private OfflineKine() {
    }

    /** Why {@code dir} cannot take the output (a kine database is there: never overwritten), or null. */
    static String refusal(Path dir) {
        for (String f : new String[] {FILE, FILE + "-wal", FILE + "-shm"}) {
            if (Files.exists(dir.resolve(f))) return dir.resolve(f) + " exists: choose an empty --out-kine directory";
        }
        return null;
    }

    /**
     * Writes {@code dir/state.db} from {@code source}; leases become TTLs by {@link KeySource#ttlOf} with {@code leaseTtl}.
     * Each key's row keeps the source's revisions (kine's id is the mod revision; a key created there has created=1,
     * else its create_revision), so kine serves the same revisions and its next write follows the source's last: a
     * watcher never sees the store go back. kine has one row a revision, so a key that shares its mod revision with
     * another (one transaction of several keys) is written after the source's revision, and the report says so.
     * compact_rev_key (id 1 when free, as kine writes it) records the last revision as compacted: the history before
     * it is not in the database; a {@code gap-} row (kine's own filler) at the source's revision when no key's row is
     * there, so that kine's revision (its greatest id) is the source's.
     */
    public static OfflineWal.Written write(KeySource source, Path dir, long leaseTtl, Instant now) throws IOException {
        try (Staged s = stage(source, dir, leaseTtl, false)) {
            return s.publish(now);
        }
    }

    /**
     * {@link #write}'s database, staged in a temp file of {@code dir} (locked), not yet published: a follow
     * ({@code following}) appends to it, and a signal is its cut-over, so the temp file outlives the signal.
     */
    static Staged stage(KeySource source, Path dir, long leaseTtl, boolean following) throws IOException {
        OutputDir out;
        try {
            out = OutputDir.open(dir);
        } catch (OutputDir.Busy b) {
            throw new IOException("another run (pid " + b.holder() + ") is writing into " + dir.toAbsolutePath().normalize()
                    + ": wait for it to finish, or choose another --out-kine");
        }
        if (following) out.finishOnSignal();
        KineOutput.Writer w = null;
        try {
            // An earlier run's switch finished just now left its own output: the same command run again replaces it
            // (kept as NAME.broken.*); anything else in DIR is never written over.
            String refusal = out.finishedEarlierSwitch() ? null : refusal(out.dir());
            if (refusal != null) throw new IOException(refusal);
            Path temp = out.temp(FILE);
            w = KineOutput.Writer.create(temp);
            KineOutput.Written written = w.write(new java.util.Iterator<KineOutput.Row>() {
                @Override
                public boolean hasNext() {
                    return source.hasNext();
                }

                @Override
                public KineOutput.Row next() {
                    SourceKey k = source.next();
                    return new KineOutput.Row(k.key(), k.value(), k.createRevision(), k.modRevision(), k.lease() <= 0 ? 0 : source.ttlOf(k.lease(), leaseTtl));
                }
            }, source.revision());
            return new Staged(out, temp, w, written.rows(), new ArrayList<>(written.notes()), leaseTtl);
        } catch (IOException | RuntimeException e) {
            if (w != null) w.close();
            out.close();
            throw e;
        }
    }

    /**
     * kine's database staged in its directory's temp file, one SQLite transaction open: the copy's rows and kine's
     * own, then (following) one row per change at the next ids, as kine writes them: a create ({@code created = 1}),
     * an update (its create_revision, its prev_revision the key's row before, the value before in {@code old_value}),
     * a delete ({@code deleted = 1}, keeping the last value and lease). kine's revisions then run on from the copy's
     * (one row a revision), not the source's.
     */
    static final class Staged implements StagedOutput {
        private final OutputDir out;
        private final Path temp;
        private final KineOutput.Writer w;
        private final List<String> notes;
        private final long leaseTtl;
        private long keys;

        private Staged(OutputDir out, Path temp, KineOutput.Writer w, long keys, List<String> notes, long leaseTtl) {
            this.out = out;
            this.temp = temp;
            this.w = w;
            this.keys = keys;
            this.notes = notes;
            this.leaseTtl = leaseTtl;
        }

        @Override
        public long keys() {
            return keys;
        }

        @Override
        public void append(long revision, List<Change> changes, Migrator.Leases.TtlOf ttlOf) throws IOException {
            for (Change ch : changes) {
                keys += w.append(ch.key(), ch.delete(), ch.value(), ch.delete() || ch.lease() <= 0 ? 0 : ttlOf.ttlOf(ch.lease(), leaseTtl));
            }
        }

        @Override
        public KeySource readBack() throws IOException {
            w.commit();
            return KineSource.open(temp);
        }

        @Override
        public long storedLease(long sourceLease, Migrator.Leases.TtlOf ttlOf) {
            return ttlOf.ttlOf(sourceLease, leaseTtl);
        }

        @Override
        public OfflineWal.Written publish(Instant now) throws IOException {
            long revision = w.finish();
            Durable.fsync(temp);
            out.publish(Map.of(FILE, temp), now);
            return new OfflineWal.Written(keys, out.cleanedUp(), revision, notes);
        }

        @Override
        public void close() throws IOException {
            w.close();
            out.close();
        }
    }
}
