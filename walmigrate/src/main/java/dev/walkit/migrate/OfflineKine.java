package dev.walkit.migrate;

import dev.walkit.format.output.Durable;
import dev.walkit.format.output.OutputDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;

/**
 * {@code --out-kine DIR}: any source's live set as kine's {@code state.db} (the way back to kine), no server
 * needed. The schema is the one kine v0.6.5 creates for SQLite (its table and five indexes, as the real kine
 * makes them); row 1 is {@code compact_rev_key}, then one create row per live key in key order (created=1,
 * prev_revision 0, the lease column its TTL: kine's lease ID is its TTL). Written in rollback-journal mode to a
 * temp file in DIR, fsynced, then renamed in and DIR fsynced ({@link OutputDir}); DIR/state.db is never
 * overwritten. kine starts from it as from its own (it turns WAL mode on itself).
 */
public final class OfflineKine {
    static final String FILE = "state.db";
    static final String[] SCHEMA = {
        "CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name INTEGER, created INTEGER, deleted INTEGER,"
            + " create_revision INTEGER, prev_revision INTEGER, lease INTEGER, value BLOB, old_value BLOB)",
        "CREATE INDEX kine_name_index ON kine (name)",
        "CREATE INDEX kine_name_id_index ON kine (name,id)",
        "CREATE INDEX kine_id_deleted_index ON kine (id,deleted)",
        "CREATE INDEX kine_prev_revision_index ON kine (prev_revision)",
        "CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision)",
    };

    private OfflineKine() {
    }

    /** Why {@code dir} cannot take the output (a kine database is there: never overwritten), or null. */
    static String refusal(Path dir) {
        for (String f : new String[] {FILE, FILE + "-wal", FILE + "-shm"}) {
            if (Files.exists(dir.resolve(f))) return dir.resolve(f) + " exists: choose an empty --out-kine directory";
        }
        return null;
    }

    /** Writes {@code dir/state.db} from {@code source}; leases become TTLs by {@link KeySource#ttlOf} with {@code leaseTtl}. */
    public static OfflineWal.Written write(KeySource source, Path dir, long leaseTtl, Instant now) throws IOException {
        OutputDir out;
        try {
            out = OutputDir.open(dir);
        } catch (OutputDir.Busy b) {
            throw new IOException("another run (pid " + b.holder() + ") is writing into " + dir.toAbsolutePath().normalize()
                    + ": wait for it to finish, or choose another --out-kine");
        }
        try (out) {
            String refusal = refusal(out.dir());
            if (refusal != null) throw new IOException(refusal);
            Path temp = out.temp(FILE);
            long n = 0;
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp)) {
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA journal_mode = DELETE");
                    s.execute("PRAGMA synchronous = FULL");
                    for (String ddl : SCHEMA) s.execute(ddl);
                }
                c.setAutoCommit(false);
                try (PreparedStatement ins = c.prepareStatement(
                        "INSERT INTO kine(name, created, deleted, create_revision, prev_revision, lease, value, old_value) VALUES (?,1,0,0,0,?,?,NULL)")) {
                    ins.setString(1, "compact_rev_key");
                    ins.setLong(2, 0);
                    ins.setBytes(3, new byte[0]);
                    ins.executeUpdate();
                    while (source.hasNext()) {
                        SourceKey k = source.next();
                        ins.setString(1, new String(k.key(), java.nio.charset.StandardCharsets.UTF_8));
                        ins.setLong(2, k.lease() <= 0 ? 0 : source.ttlOf(k.lease(), leaseTtl));
                        ins.setBytes(3, k.value());
                        ins.addBatch();
                        if (++n % 10_000 == 0) ins.executeBatch();
                    }
                    ins.executeBatch();
                }
                c.commit();
            } catch (SQLException e) {
                throw new IOException(temp + ": the kine database could not be written: " + e.getMessage(), e);
            }
            Files.deleteIfExists(temp.resolveSibling(temp.getFileName() + "-journal"));
            Durable.fsync(temp);
            out.publish(Map.of(FILE, temp), now);
            return new OfflineWal.Written(n, out.cleanedUp());
        }
    }
}
