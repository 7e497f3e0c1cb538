package dev.walkit.format.kine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * kine's SQLite {@code state.db}, opened from a private copy: kine runs SQLite in WAL journal mode, so committed
 * rows may live only in {@code state.db-wal}, and any SQLite client checkpoints and deletes the {@code -wal}
 * when it closes; the files (db, -wal, -shm) are copied to a temporary directory and only the copy is opened.
 * The source files are never written. The SQLite driver (sqlite-jdbc) is found at run time by its URL.
 */
public final class KineDb implements AutoCloseable {
    /** SQLite's own ceiling for a mapping (SQLITE_MAX_MMAP_SIZE); a smaller file is mapped whole. */
    static final long MMAP_BYTES = 0x7fff0000L;
    /** The first 16 bytes of every SQLite 3 database file. */
    private static final byte[] MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

    private final Path source;
    private final Path copyDir;
    private final Connection connection;
    private final dev.walkit.format.sqlite.SqliteWalCheck.State wal;

    private KineDb(Path source, Path copyDir, Connection connection, dev.walkit.format.sqlite.SqliteWalCheck.State wal) {
        this.wal = wal;
        this.source = source;
        this.copyDir = copyDir;
        this.connection = connection;
    }

    /** True when {@code path} begins as an SQLite 3 database. */
    public static boolean sniff(Path path) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(path)) {
            return java.util.Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
        }
    }

    /** Copies {@code stateDb} (and its -wal and -shm) to a private directory named after {@code tool} and opens the copy. */
    public static KineDb open(Path stateDb, String tool) throws IOException {
        if (!Files.isRegularFile(stateDb)) {
            throw new IOException(stateDb + (Files.exists(stateDb) ? ": not a regular file (a FIFO, socket, device or directory)" : ": no such SQLite file"));
        }
        // SQLite's start (its driver's classes and native library, 90 ms) beside the copy, not after it.
        Thread warm = new Thread(KineDb::startSqlite, "sqlite-start");
        warm.setDaemon(true);
        warm.start();
        Path dir = Files.createTempDirectory(tool + "-kine-");
        try {
            Path copy = dir.resolve("state.db");
            Files.copy(stateDb, copy, StandardCopyOption.COPY_ATTRIBUTES);
            for (String suffix : new String[] {"-wal", "-shm"}) {
                Path side = stateDb.resolveSibling(stateDb.getFileName() + suffix);
                if (Files.exists(side)) Files.copy(side, dir.resolve("state.db" + suffix));
            }
            // The -wal and -shm as kine left them, before a connection of ours recovers (and rewrites) the -shm.
            dev.walkit.format.sqlite.SqliteWalCheck.State wal = dev.walkit.format.sqlite.SqliteWalCheck.inspect(copy);
            return new KineDb(stateDb, dir, mapped(connect(copy)), wal);
        } catch (SQLException e) {
            deleteTree(dir);
            throw new IOException(stateDb + ": not a kine database: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    /** Loads SQLite (an in-memory database opened and closed); a failure is met again, and reported, by {@link #connect}. */
    private static void startSqlite() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            c.isValid(0);
        } catch (SQLException | RuntimeException | LinkageError e) {
            // connect() meets it and says what it is
        }
    }

    /** {@code c} reading pages through a mapping. */
    private static Connection mapped(Connection c) throws SQLException {
        try (Statement pragma = c.createStatement()) {
            // Pages read through a mapping, not a pread each: the live-set query reads 560k rows of a
            // 230 MB database in 0.7 s instead of 1.1 s. Safe here: the file is our private copy.
            pragma.execute("PRAGMA mmap_size = " + MMAP_BYTES);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * A second connection to the private copy (a reader beside {@link #connection()}, on another thread); the caller
     * closes it. It reads pages by pread, not through a second mapping: a whole-file check (quick_check) beside the
     * rows' read is no slower for it, and the file is not resident twice.
     */
    public Connection connectAgain() {
        return connect(copyDir.resolve("state.db"));
    }

    /**
     * Opens the SQLite file. SQLite opens lazily: this fails only when SQLite itself cannot start (its
     * native library did not load: no build for this platform, or a temp directory it cannot run
     * from), which says nothing about the database: that is not exit 4's "unreadable input".
     */
    private static Connection connect(Path db) {
        try {
            return DriverManager.getConnection("jdbc:sqlite:" + db);
        } catch (SQLException e) {
            Throwable root = e;
            while (root.getCause() != null) root = root.getCause();
            throw new IllegalStateException("cannot start SQLite (" + e.getMessage() + (root != e ? ": " + root : "")
                    + "); sqlite-jdbc extracts its native library into java.io.tmpdir: if that is mounted noexec, set JAVA_OPTS=-Dorg.sqlite.tmpdir=DIR", e);
        }
    }

    /** kine's own rows ({@code compact_rev_key}, {@code compact_rev_key_apiserver}, {@code gap-*}): not data. */
    public static boolean internal(byte[] name) {
        return Arrays.equals(name, COMPACT_REV_KEY) || Arrays.equals(name, COMPACT_REV_KEY_APISERVER)
                || (name.length >= GAP.length && Arrays.equals(name, 0, GAP.length, GAP, 0, GAP.length));
    }

    private static final byte[] COMPACT_REV_KEY = "compact_rev_key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COMPACT_REV_KEY_APISERVER = "compact_rev_key_apiserver".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GAP = "gap-".getBytes(StandardCharsets.US_ASCII);

    /** The -wal's state as kine left it, and the committed transactions it lost ({@link dev.walkit.format.sqlite.SqliteWalCheck}). */
    public dev.walkit.format.sqlite.SqliteWalCheck.State wal() {
        return wal;
    }

    public Connection connection() {
        return connection;
    }

    public Path source() {
        return source;
    }

    /** The private copy of the database file (its -wal beside it). */
    Path copy() {
        return copyDir.resolve("state.db");
    }

    /** The copy, and the connection to it, are gone afterwards. */
    @Override
    public void close() throws IOException {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IOException(source + ": close failed: " + e.getMessage(), e);
        } finally {
            deleteTree(copyDir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
