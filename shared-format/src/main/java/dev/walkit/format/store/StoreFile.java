package dev.walkit.format.store;

import dev.walkit.format.Wal;
import dev.walkit.format.account.Store.Kind;
import dev.walkit.format.bbolt.BoltFile;
import dev.walkit.format.kine.KineDb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which store a path given on the command line is, sniffed from its bytes, not its name: the WAL (a file, or
 * a data directory with {@code wal}), etcd's bbolt db (a file: {@code member/snap/db} or {@code etcdctl
 * snapshot save} output; or an etcd data directory, whose {@code member/snap/db} is read), or kine's SQLite
 * {@code state.db} (or k3s's {@code server/db} directory that holds it).
 */
public record StoreFile(Kind kind, Path file) {
    static final String ETCD_DB = "member/snap/db";
    static final String KINE_DB = "state.db";

    public static StoreFile resolve(Path path) throws IOException {
        if (Files.isDirectory(path) && !Files.exists(path.resolve(Wal.WAL_FILE)) && Files.isRegularFile(path.resolve(ETCD_DB))) {
            return new StoreFile(Kind.ETCD_DB, path.resolve(ETCD_DB));
        }
        if (Files.isDirectory(path) && !Files.exists(path.resolve(Wal.WAL_FILE)) && Files.isRegularFile(path.resolve(KINE_DB))) {
            return new StoreFile(Kind.KINE, path.resolve(KINE_DB));
        }
        Path f = Wal.resolve(path);
        if (Files.isRegularFile(f) && Files.isReadable(f) && BoltFile.sniff(f)) return new StoreFile(Kind.ETCD_DB, f);
        if (Files.isRegularFile(f) && Files.isReadable(f) && KineDb.sniff(f)) return new StoreFile(Kind.KINE, f);
        // A kine db whose header is damaged: its pages still hold kine's rows (read as sqlite3's .recover reads them).
        if (Files.isRegularFile(f) && Files.isReadable(f) && dev.walkit.format.kine.KineSalvage.looksPaged(f)) return new StoreFile(Kind.KINE, f);
        return new StoreFile(Kind.WAL, f);
    }
}
