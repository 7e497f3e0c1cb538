package dev.walkit.migrate;

import java.util.Iterator;

/** The live keys of a source, streamed (in ascending byte order of key, unless opened unordered). */
public interface KeySource extends Iterator<SourceKey>, AutoCloseable {
    /** What the source is, for reports. */
    String describe();

    /** The source's revision (kine: the greatest row id; WAL: the replayed revision). */
    long revision();

    /** Whether {@link SourceKey#lease()} is a TTL (kine) rather than a lease ID (WAL). */
    boolean leaseIsTtl();

    @Override
    void close() throws java.io.IOException;
}
