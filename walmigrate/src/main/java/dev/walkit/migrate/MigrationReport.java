package dev.walkit.migrate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a migration did, as a value: counts and lists (each list capped at {@link #MAX_LISTED}; the counts count
 * all). Made by the run's {@link Tally}, which the workers add to.
 *
 * @param unsent    keys not written because the migration stopped (the target went silent)
 * @param conflicts the keys, as bytes (printed quoted, and in JSON also as base64)
 * @param nanos  how long it took
 */
public record MigrationReport(long sourceKeys, long written, long alreadyPresent, long batches, long retries, long leasesGranted,
                              long unsent, List<byte[]> conflicts, long conflictCount, List<String> tooLarge, List<String> errors,
                              long nanos, long leasesReused) {
    public static final int MAX_LISTED = 1000;

    public MigrationReport {
        conflicts = List.copyOf(conflicts);
        tooLarge = List.copyOf(tooLarge);
        errors = List.copyOf(errors);
    }

    public double seconds() {
        return nanos / 1e9;
    }

    /** The counts as a run makes them; thread-safe where the workers touch it. */
    static final class Tally {
        long sourceKeys;
        long written;
        long alreadyPresent;
        long batches;
        long retries;
        long leasesGranted;
        /** Leases an earlier run granted, found on the keys it wrote and used again. */
        long leasesReused;
        /** Keys not written because the migration stopped (the target went silent). */
        long unsent;
        final List<byte[]> conflicts = Collections.synchronizedList(new ArrayList<>());
        long conflictCount;
        final List<String> tooLarge = Collections.synchronizedList(new ArrayList<>());
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        long nanos;

        synchronized void add(long w, long present, long retried) {
            written += w;
            alreadyPresent += present;
            retries += retried;
        }

        synchronized void conflict(byte[] key) {
            conflictCount++;
            if (conflicts.size() < MAX_LISTED) conflicts.add(key);
        }

        synchronized MigrationReport done() {
            return new MigrationReport(sourceKeys, written, alreadyPresent, batches, retries, leasesGranted, unsent, conflicts,
                    conflictCount, tooLarge, errors, nanos, leasesReused);
        }
    }
}
