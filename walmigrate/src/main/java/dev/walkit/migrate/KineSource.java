package dev.walkit.migrate;

import dev.walkit.format.kine.KineLive;
import dev.walkit.format.pass.Pass;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The live set of kine's SQLite {@code state.db}, as kine serves it ({@link KineLive}: each name's latest row, live
 * when not deleted; kine's own rows left out; the lease a TTL in seconds), streamed in key order or kine's. Read
 * through the pass ({@link Pass#kine}: the db checked and its keys read from one open of it, never written), or on a
 * follow's live read-only connection at a revision.
 */
public final class KineSource implements KeySource {
    private final KineLive.LiveSet keys;
    /** What reading the keys holds open (the pass's read of the db), closed with this; null for a follow's. */
    private final AutoCloseable holds;
    private final String describe;

    private KineSource(Path source, KineLive.LiveSet keys, AutoCloseable holds) {
        this.keys = keys;
        this.holds = holds;
        this.describe = "kine " + source;
    }

    /** The keys of {@code read} (the pass's read of {@code source}), which this closes. */
    static KineSource of(Path source, Pass.KineRead read) throws IOException {
        return new KineSource(source, read.keys(), read);
    }

    /**
     * The live set as it stood at {@code revision}, in key order, read on a follow's connection to the live database
     * (which stays open when this closes): rows up to a revision are never changed, only removed by kine's compaction,
     * which the follow checks it has not passed.
     */
    static KineSource at(Path source, KineLive live, long revision) throws IOException {
        return new KineSource(source, live.liveSet(revision, true), null);
    }

    /** {@code stateDb} read through the pass, refused as walmigrate's gate refuses a damaged db; keys in byte order. */
    public static KineSource open(Path stateDb) throws IOException {
        return open(stateDb, true);
    }

    /** As {@link #open(Path)}; {@code ordered = false} streams the keys in kine's order (faster, for migration). */
    public static KineSource open(Path stateDb, boolean ordered) throws IOException {
        Pass.KineRead read = Pass.kine(stateDb, ordered);
        try {
            SourceGate.store(read.report(), stateDb, null); // the pass's verdict, as every source is judged
            return of(stateDb, read);
        } catch (IOException | RuntimeException e) {
            read.close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return keys.hasNext();
    }

    @Override
    public SourceKey next() {
        KineLive.Key k = keys.next();
        // kine keeps no version: a migrated key gets the target's own, and an offline WAL gets version 1.
        return new SourceKey(k.key(), k.value(), k.createRevision(), k.modRevision(), 1, k.leaseTtl());
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public long revision() {
        return keys.revision();
    }

    @Override
    public boolean leaseIsTtl() {
        return true;
    }

    @Override
    public void close() throws IOException {
        try {
            keys.close();
        } finally {
            if (holds != null) {
                try {
                    holds.close();
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException(describe + ": close failed: " + e.getMessage(), e);
                }
            }
        }
    }
}
