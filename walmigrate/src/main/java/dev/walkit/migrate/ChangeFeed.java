package dev.walkit.migrate;

import java.io.IOException;
import java.util.List;

/**
 * A live source followed: its state at one revision (the copy), then the transactions committed after it, in the
 * source's order, each whole. One per source: a live WAL ({@link WalFeed}), kine's rows ({@link KineFeed}), a live
 * etcd's watch ({@link EtcdFeed}). Nothing is ever written to the source.
 */
public interface ChangeFeed extends AutoCloseable {
    /** What is followed, for reports. */
    String describe();

    /**
     * Places the feed at {@code revision} ({@code LATEST}: the source's newest, but not after {@code notAfter}) and
     * returns the revision it is at: the copy is the state there, and {@link #poll} gives what came after. Called once.
     * An error (IOException) names what to do when the source no longer holds that revision's state (compacted past it).
     */
    long position(long revision, long notAfter) throws IOException;

    /** {@link #position}'s argument for "the newest revision". */
    long LATEST = -1;

    /** Why a feed cannot be placed at {@code revision} (a marker's) when {@code source} is only at {@code newest}. */
    static IOException ahead(String source, long revision, long newest) {
        return new IOException("the target's migration marker says revision " + revision + ", but " + source + " is at " + newest
                + ": another source? (a target is followed from one source)");
    }

    /** The live keys at {@code revision} (the position's, or a later one up to what was polled), in key order. */
    KeySource state(long revision) throws IOException;

    /**
     * The transactions committed after the last one given (or the position), up to revision {@code upTo} (later ones
     * are kept for a later poll), waiting up to {@code waitMillis} for one.
     */
    List<SourceTxn> poll(long waitMillis, long upTo) throws IOException;

    /** The newest revision the source is known to have (for the lag in revisions). */
    long head();

    /**
     * The source's newest revision, asked now; the follow has caught up (for a cut-over) once it applied this far and
     * a poll brings nothing more.
     */
    long headNow() throws IOException;

    /** As {@link KeySource#leaseIsTtl()}. */
    boolean leaseIsTtl();

    /** As {@link KeySource#ttlOf}. */
    default long ttlOf(long lease, long fallback) {
        return leaseIsTtl() ? lease : fallback;
    }

    @Override
    void close() throws IOException;
}
