package dev.walkit.format;

import java.io.IOException;

/**
 * Where a store's WAL form goes, record by record in log order: a file ({@link WalWriter}) or replay itself. A sink
 * that reads no value ({@link #readsValues()} false: a replay by the rules) may be given a record's value length
 * instead of its bytes ({@link #append(KeyValue, int)}), so that a store need not copy its values out.
 */
@FunctionalInterface
public interface RecordSink {
    void append(KeyValue record) throws IOException;

    /** Whether this sink reads values; when false, a store may give each record by {@link #append(KeyValue, int)}. */
    default boolean readsValues() {
        return true;
    }

    /**
     * Whether this sink counts versions (it keeps each key's state: a replay). A store that keeps none (kine) then
     * gives each put after its snapshot prefix with version 0, and the sink gives it the version the rules expect: 1
     * when it creates the key (its create_revision is its own revision) or the key is not live, else one more than
     * the key's. To a sink that does not, the store counts them itself, by the same rule.
     */
    default boolean countsVersions() {
        return false;
    }

    /**
     * {@code record} (its value empty) standing for the same record with a value of {@code valueLength} bytes, which
     * were not read. Only to a sink that does not {@link #readsValues()}.
     */
    default void append(KeyValue record, int valueLength) throws IOException {
        if (valueLength != 0) throw new UnsupportedOperationException("this sink reads values: give it the record's value");
        append(record);
    }
}
