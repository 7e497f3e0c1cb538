package dev.walkit.format.pass;

import java.util.function.Consumer;

/**
 * The keys of a {@link StoreHistory}: each key the store applied a record of, found by its bytes and listed in byte
 * order (unsigned, as etcd orders keys), with the head of its chain through the {@link AppliedColumns}. Made by the
 * replay ({@link HeapHistoryKeys}) or mapped from a saved index ({@link SavedIndex}).
 */
interface HistoryKeys {
    /** A key with a history: its bytes, its last applied record and how many were applied, its state at the end. */
    interface Entry {
        byte[] key();

        /** The key's last applied record's id in the {@link AppliedColumns}. */
        int last();

        /** How many of its records were applied. */
        int count();

        /** Live at the end (its last applied record is a PUT). */
        boolean live();

        /** The lease of its live state at the end, 0 for none. */
        long lease();

        /** Its value's length at the end (0 for a tombstone). */
        int valueLength();

        /** Its create revision at the end (a tombstone's: as the delete left it). */
        long createRevision();

        /** Its version at the end (a tombstone's: as the delete left it). */
        long version();

        /** Where its value lies in the file at the end (0 for a tombstone). */
        long valueOffset();
    }

    /** The key's entry, or null when the store never applied a record of it. */
    Entry find(byte[] key);

    /** How many keys have a history. */
    int size();

    /** The {@code i}-th key in byte order. */
    Entry get(int i);

    /** The index of the first key at or after {@code key} in byte order. */
    int lowerBound(byte[] key);

    /** Every key with a history, in no order (no sort). */
    void forEach(Consumer<Entry> action);
}
