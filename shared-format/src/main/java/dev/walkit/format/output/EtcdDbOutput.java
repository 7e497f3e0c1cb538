package dev.walkit.format.output;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.RecordView;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWriter;
import dev.walkit.format.replay.KeyIndex;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A recovered state as etcd's own db: a clean v2 WAL (a recovery's verified output, history or snapshot form) written
 * revision by revision into an etcd db ({@link EtcdDbWriter}), then read back through the reader every tool uses and
 * compared, byte for byte, with what was written (the WAL itself was verified against the plan). The WAL's snapshot prefix is the db's compaction: its marker's revision is the
 * compact revision, its keys (in key order in the WAL) are written at their mod revisions, in revision order, the
 * keys that share one numbered by sub revision in key order; after it, each transaction's records are its revision's
 * sub revisions in log order, a DELETE a tombstone.
 */
public final class EtcdDbOutput {
    /** The db's file name in a data directory's {@code member/snap}, and in walrecover's output directory. */
    public static final String FILE = "db";

    /** What was written (and read back as written): its revisions, its size, its compact revision. */
    public record Written(long revisions, long bytes, long compactRevision) {
    }

    private EtcdDbOutput() {
    }

    /**
     * Writes {@code wal} (a clean v2 WAL) as an etcd db at {@code db} (created; not forced to disk) with {@code leases}
     * (ID → TTL seconds) and returns what was written, read back.
     */
    public static Written write(Path wal, Path db, Map<Long, Long> leases) throws IOException {
        return write(wal, db, leases, 0);
    }

    /**
     * As above, the db's revision {@code bump} past the WAL's last and compacted there, as etcdutl 3.5's
     * {@code snapshot restore --bump-revision N --mark-compacted} leaves it: a client that saw revisions the lost part
     * held never sees the store go back, and a watch from before it is told the history is compacted (it lists again).
     * etcd takes a compaction above its last revision as its revision (its store's restore).
     */
    public static Written write(Path wal, Path db, Map<Long, Long> leases, long bump) throws IOException {
        if (bump < 0) throw new IllegalArgumentException("a revision bump of " + bump);
        ReaderOptions ro = ReaderOptions.defaults();
        long compact = 0;
        long bytes;
        EtcdDbWriter.Fingerprint written;
        try (WalReader r = WalReader.open(wal, ro); EtcdDbWriter w = EtcdDbWriter.create(db)) {
            WalFile in = r.file();
            List<WalEntry> prefix = new ArrayList<>();
            boolean inPrefix = false;
            for (ReadResult it; (it = r.next()) != null; ) {
                if (it instanceof DamageSpan d) throw new IOException(wal + ": not a clean WAL to write as an etcd db: " + d);
                WalEntry e = WalEntry.of((RecordView) it);
                if (e.isSnapshot()) {
                    if (e.key().length == 0) {
                        compact = e.revision();
                        inPrefix = true;
                    } else {
                        prefix.add(e);
                    }
                    continue;
                }
                if (inPrefix) {
                    writePrefix(w, in, prefix);
                    inPrefix = false;
                }
                write(w, in, e);
            }
            if (inPrefix) writePrefix(w, in, prefix);
            if (bump > 0) compact = Math.max(w.lastRevision(), compact) + bump;
            bytes = w.finish(leases, compact, -1);
            written = w.fingerprint();
        }
        readBack(db, written, leases, compact);
        return new Written(written.entries(), bytes, compact);
    }

    /**
     * Reads {@code db} back through the reader every tool uses: no damage, the key bucket byte for byte the revisions
     * written ({@link EtcdDbWriter.Fingerprint}), the leases and the compaction as written; else fails, naming what
     * differs (nothing is published). The WAL it was written from was verified against the plan before.
     */
    static void readBack(Path db, EtcdDbWriter.Fingerprint written, Map<Long, Long> leases, long compact) throws IOException {
        try (EtcdDb d = EtcdDb.openDatabase(db)) {
            EtcdDbWriter.Fingerprint read = EtcdDbWriter.fingerprint(d);
            List<String> problems = new ArrayList<>();
            if (!d.bolt().damage().isEmpty()) problems.add(d.bolt().damage().get(0).toString());
            if (!read.equals(written)) problems.add("its key bucket reads " + read + ", written " + written);
            if (d.compactRevision() != compact) problems.add("its compact revision reads " + d.compactRevision() + ", written " + compact);
            java.util.Map<Long, Long> want = new java.util.TreeMap<>();
            leases.forEach((id, ttl) -> want.put(id, Math.max(0, ttl)));
            if (!new java.util.TreeMap<>(d.leases()).equals(want)) problems.add("its leases read " + d.leases() + ", written " + want);
            if (!problems.isEmpty()) throw new IOException("the etcd db did not read back as written (nothing was published): " + String.join("; ", problems));
        }
    }

    /** The prefix's keys in revision order (in key order within one): each its revision's next sub revision. */
    private static void writePrefix(EtcdDbWriter w, WalFile in, List<WalEntry> prefix) throws IOException {
        prefix.sort(Comparator.comparingLong(WalEntry::revision).thenComparing(WalEntry::key, KeyIndex.KEY_ORDER));
        for (WalEntry e : prefix) write(w, in, e);
        prefix.clear();
    }

    /** {@code e} at its revision's next sub revision (a transaction's records in log order). */
    private static void write(EtcdDbWriter w, WalFile in, WalEntry e) throws IOException {
        long sub = w.nextSub(e.revision());
        if (e.isDelete()) w.tombstone(e.revision(), sub, e.key());
        else w.put(e.revision(), sub, e.key(), e.createRevision(), e.version(), in.read(e.valueOffset(), e.valueLength()), e.lease());
    }

}
