package dev.walkit.migrate;

import java.io.IOException;
import java.time.Instant;

/**
 * An offline output a follow writes as the source changes ({@code --out-wal}, {@code --out-kine} with {@code --follow}):
 * the copy staged in a temp file of its directory (locked), each source transaction appended as the store (or kine)
 * would have written it, read back for the cut-over's check, and published by one durable rename. Closed unpublished,
 * it leaves the directory as it was.
 */
interface StagedOutput extends AutoCloseable {
    /** The keys it holds now. */
    long keys();

    /** A source transaction's {@code changes} at {@code revision}, appended as one; {@code ttlOf} gives a source lease's TTL. */
    void append(long revision, java.util.List<Change> changes, Migrator.Leases.TtlOf ttlOf) throws IOException;

    /** What it holds, as a source read back from the staged file, in key order, leases as the output stores them. */
    KeySource readBack() throws IOException;

    /** A source lease as the output stores it: the ID for a WAL, the TTL for kine. */
    long storedLease(long sourceLease, Migrator.Leases.TtlOf ttlOf);

    /** Made durable and renamed in; what was written. */
    OfflineWal.Written publish(Instant now) throws IOException;

    @Override
    void close() throws IOException;
}
