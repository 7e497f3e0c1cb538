package dev.walkit.format.account;

import java.nio.file.Path;
import java.util.List;

/**
 * What was read, as the operator knows it: the store's kind and file, its size, its format, its own facts and
 * damage. For an etcd db or a kine db these are the store's (its pages, its rows, its lease bucket), never those of
 * the private WAL form the engine replays.
 *
 * @param records the store's own count of what it holds (an etcd db's revisions, kine's rows), or -1: the records read
 * @param leases  the store's own count of its leases (an etcd db's lease bucket), or -1: those the replay found
 * @param detail  the store's own facts in words (page size, txid; SQLite's row count), empty for a WAL
 * @param damage  the store's own damage (bbolt pages, SQLite's check, rows it could not read), each in words
 */
public record Store(Kind kind, Path path, long bytes, String format, long records, long leases, String detail, List<String> damage) {
    /** The three stores of a control plane. */
    public enum Kind {
        WAL("wal", "WAL"), ETCD_DB("etcd-db", "etcd db"), KINE("kine", "kine state.db");

        private final String label;
        private final String title;

        Kind(String label, String title) {
            this.label = label;
            this.title = title;
        }

        /** Its word in JSON ({@code wal}, {@code etcd-db}, {@code kine}). */
        public String label() {
            return label;
        }

        /** Its name in text ({@code WAL}, {@code etcd db}, {@code kine state.db}). */
        public String title() {
            return title;
        }
    }

    public Store {
        damage = List.copyOf(damage);
    }

    /** A WAL file of {@code bytes} in {@code format} (v1, v2). */
    public static Store wal(Path path, long bytes, String format) {
        return new Store(Kind.WAL, path, bytes, format, -1, -1, "", List.of());
    }

    public boolean isWal() {
        return kind == Kind.WAL;
    }

    /** What the format field says: the WAL's version, else the store's kind. */
    public String formatLabel() {
        return isWal() ? format : kind.label();
    }
}
