package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;

/**
 * The snapshot prefix's rules (docs/format.md §6), written once, with the state they need: one marker at
 * offset 0 (a lone SNAPSHOT record, key empty, an 8-byte count), then lone SNAPSHOT records of distinct
 * keys in ascending byte order with mod_revision at most the compact revision, as many as the marker
 * counts, then ordinary transactions only. {@link Replayer} turns what this reports into findings;
 * {@link CleanReplay} stops at the first report. What is kept when the prefix is inconsistent (the
 * salvage reading): every intact snapshot record after the marker, the first occurrence of a key; the
 * mismatch is reported. A policy that stops at the first damage stops at the first report
 * ({@code inPrefix} true).
 */
public final class SnapshotPrefix {
    /** What replay does with a snapshot record. */
    public enum Action {
        /** The marker: the prefix begins, at the compact revision. */
        MARKER,
        /** A record of the prefix: applied as stored. */
        APPLY,
        /** Not applied: its transaction is dropped (the report said why). */
        DROP
    }

    /** What an inconsistency does to what replay keeps. */
    public enum Effect {
        /** The record or transaction is not applied. */
        DROPS,
        /** Applied as stored: a log that keeps the record as it is carries the inconsistency. */
        KEPT,
        /**
         * About the marker's count or its absence: a writer that writes a marker with the count of the records
         * it keeps (walrecover's history form) repairs it.
         */
        COUNT
    }

    /**
     * Where the rules report what they find: the bytes concerned ({@code length} 0 when none), what it does to what
     * is kept, and {@code inPrefix} when it is an inconsistency of the prefix.
     */
    public interface Report {
        void report(DamageKind kind, long offset, long length, String detail, Effect effect, boolean inPrefix);
    }

    private boolean marker;
    private long compactRevision;
    private long expected;
    private long present;
    private boolean markerless;
    private boolean closed;

    /** The prefix's state, for a replay resumed where another stopped ({@link Replayer.Checkpoint}). */
    public record State(boolean marker, long compactRevision, long expected, long present, boolean markerless, boolean closed) {
    }

    State state() {
        return new State(marker, compactRevision, expected, present, markerless, closed);
    }

    void restore(State s) {
        marker = s.marker();
        compactRevision = s.compactRevision();
        expected = s.expected();
        present = s.present();
        markerless = s.markerless();
        closed = s.closed();
    }

    /** Whether the prefix is over: an ordinary transaction came (or the log ended). */
    public boolean closed() {
        return closed;
    }

    /** Whether a marker began the prefix. */
    public boolean hasMarker() {
        return marker;
    }

    public long compactRevision() {
        return compactRevision;
    }

    /** A transaction of {@code records} records (more than one) with a SNAPSHOT record among them: never in a prefix. */
    public Action inTransaction(long offset, long length, int records, Report r) {
        r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "a SNAPSHOT-flagged record inside a transaction of " + records
                + " records at offset " + offset + " (snapshot records are transactions of one)", Effect.DROPS, !closed);
        return Action.DROP;
    }

    /**
     * A lone SNAPSHOT record at {@code offset}: a marker ({@code emptyKey}, {@code valueLength} the count's) or a
     * record of the prefix. {@code firstItem}: nothing was applied or dropped before it; {@code duplicate}: its
     * key is already in the prefix; {@code ascending}: its key sorts after the prefix's previous key (or is the
     * first).
     */
    public Action lone(long offset, long length, long revision, boolean emptyKey, int valueLength, boolean firstItem, boolean duplicate,
                       boolean ascending, Report r) {
        if (emptyKey) {
            if (offset == 0 && firstItem && !closed && !marker && valueLength == 8) return Action.MARKER;
            r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "a snapshot marker at offset " + offset + " (only one, at offset 0, is allowed)",
                    Effect.DROPS, !closed);
            return Action.DROP;
        }
        if (closed) {
            r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "a snapshot record after ordinary transactions", Effect.DROPS, false);
            return Action.DROP;
        }
        if (!marker && !markerless) {
            markerless = true;
            r.report(DamageKind.MISPLACED_SNAPSHOT, offset, 0, "snapshot records without a marker at offset 0: applied as a snapshot of unknown count",
                    Effect.COUNT, true);
        }
        if (duplicate) {
            r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "a key that is already in the snapshot prefix: the first occurrence is kept",
                    Effect.DROPS, true);
            return Action.DROP;
        }
        if (!ascending) r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "snapshot keys out of ascending byte order", Effect.KEPT, true);
        if (marker && present == expected) {
            r.report(DamageKind.MISPLACED_SNAPSHOT, offset, length, "more snapshot records than the marker counts (" + expected
                    + "): kept, the first occurrence of each key", Effect.COUNT, true);
        }
        if (marker && revision > compactRevision) {
            r.report(DamageKind.VERSION_MISMATCH, offset, length, "snapshot record with mod_revision " + revision + " above the compact revision "
                    + compactRevision, Effect.KEPT, true);
        }
        present++;
        return Action.APPLY;
    }

    /** The marker was taken ({@link Action#MARKER}): the prefix counts {@code count} records, at {@code revision}. */
    public void marker(long revision, long count) {
        marker = true;
        compactRevision = revision;
        expected = count;
    }

    /**
     * An ordinary transaction begins (or the log ends) at {@code at}: the prefix closes. Reports a marker whose
     * count exceeds the records present (a truncated snapshot); true when the prefix was whole.
     */
    public boolean close(long at, Report r) {
        if (closed) return true;
        closed = true;
        if (marker && present < expected) {
            r.report(DamageKind.TRUNCATED_SNAPSHOT, 0, at, "the snapshot marker counts " + expected + " records, " + present + " are present",
                    Effect.COUNT, true);
            return false;
        }
        return true;
    }
}
