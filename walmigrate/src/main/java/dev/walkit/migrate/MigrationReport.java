package dev.walkit.migrate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Counts and lists of a migration; thread-safe where the workers touch it. */
public final class MigrationReport {
    public static final int MAX_LISTED = 1000;

    long sourceKeys;
    long written;
    long alreadyPresent;
    long batches;
    long retries;
    long leasesGranted;
    /** Keys not written because the migration stopped (the target went silent). */
    long unsent;
    final List<String> conflicts = Collections.synchronizedList(new ArrayList<>());
    long conflictCount;
    final List<String> tooLarge = Collections.synchronizedList(new ArrayList<>());
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    long nanos;

    synchronized void add(long w, long present, long retried) {
        written += w;
        alreadyPresent += present;
        retries += retried;
    }

    synchronized void conflict(String key) {
        conflictCount++;
        if (conflicts.size() < MAX_LISTED) conflicts.add(key);
    }

    public long sourceKeys() {
        return sourceKeys;
    }

    public synchronized long written() {
        return written;
    }

    public synchronized long alreadyPresent() {
        return alreadyPresent;
    }

    public synchronized long conflictCount() {
        return conflictCount;
    }

    public List<String> conflicts() {
        return conflicts;
    }

    public List<String> tooLarge() {
        return tooLarge;
    }

    public List<String> errors() {
        return errors;
    }

    public long unsent() {
        return unsent;
    }

    public long batches() {
        return batches;
    }

    public long leasesGranted() {
        return leasesGranted;
    }

    public double seconds() {
        return nanos / 1e9;
    }
}
