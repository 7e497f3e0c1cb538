package dev.walkit.testdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** What the tests ask an SQLite file (kine's state.db) through SQLite itself, and the damage they do to it. */
public final class SqliteFile {
    private SqliteFile() {
    }

    /** Each query's one number (its first row's first column), in order, on one connection to {@code db}. */
    public static long[] numbers(Path db, String... queries) throws SQLException {
        long[] out = new long[queries.length];
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (int i = 0; i < queries.length; i++) {
                try (ResultSet r = s.executeQuery(queries[i])) {
                    r.next();
                    out[i] = r.getLong(1);
                }
            }
        }
        return out;
    }

    /** kine's table's root page and the file's page size. */
    public static long[] kineRoot(Path db) throws SQLException {
        return numbers(db, "SELECT rootpage FROM sqlite_master WHERE name = 'kine'", "PRAGMA page_size");
    }

    /** Zeroes kine's table's root page ("database disk image is malformed"); returns its number. */
    public static long zeroKineRoot(Path db) throws SQLException, IOException {
        long[] rp = kineRoot(db);
        try (FileChannel ch = FileChannel.open(db, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate((int) rp[1]), (rp[0] - 1) * rp[1]);
        }
        return rp[0];
    }
}
