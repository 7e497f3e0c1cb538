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
import java.util.List;
import java.util.stream.Stream;

/**
 * kine's SQLite {@code state.db}, opened without ever writing it: kine runs SQLite in WAL journal mode, so committed
 * rows may live only in {@code state.db-wal}, and any SQLite client checkpoints and deletes the {@code -wal} when it
 * closes. When the {@code -wal} holds anything (or a rollback {@code -journal} is there), the files (db, -wal, -shm)
 * are copied to a temporary directory and only the copy is opened. When there is no {@code -wal} to read (none, or
 * empty: kine stopped cleanly, or a copy taken without it), the db itself is read in place, as SQLite's
 * {@code immutable=1} read-only open reads it (no lock, no {@code -shm} or {@code -wal} made, nothing written) and
 * without a mapping (a file cut under a mapping would kill the process): 420 MB not copied, nor written back by the
 * kernel, before the first row. The SQLite driver (sqlite-jdbc) is found at run time by its URL.
 */
public final class KineDb implements AutoCloseable {
    /** SQLite's own ceiling for a mapping (SQLITE_MAX_MMAP_SIZE); a smaller file is mapped whole. */
    static final long MMAP_BYTES = 0x7fff0000L;
    /** The first 16 bytes of every SQLite 3 database file. */
    private static final byte[] MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

    private final Path source;
    private final Path copyDir;
    /** What is read: the private copy in {@link #copyDir}, or the source itself when it is read in place. */
    private Path file;
    private Connection connection;
    private final dev.walkit.format.sqlite.SqliteWalCheck.State wal;
    private KineSalvage.Result salvage;

    private KineDb(Path source, Path copyDir, Path file, Connection connection, dev.walkit.format.sqlite.SqliteWalCheck.State wal,
            KineSalvage.Result salvage) {
        this.wal = wal;
        this.salvage = salvage;
        this.source = source;
        this.copyDir = copyDir;
        this.file = file;
        this.connection = connection;
    }

    /** True when {@code path} begins as an SQLite 3 database. */
    public static boolean sniff(Path path) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(path)) {
            return java.util.Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
        }
    }

    /**
     * Opens {@code stateDb}: in place when it has no {@code -wal} to read, else its files copied (db, -wal, -shm) to a
     * private directory named after {@code tool}, and the copy opened.
     */
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
            boolean inPlace = readableInPlace(stateDb);
            Path copy = inPlace ? stateDb : dir.resolve("state.db");
            if (!inPlace) copyInto(stateDb, dir, "state.db");
            // The -wal and -shm as kine left them, before a connection of ours recovers (and rewrites) the -shm.
            dev.walkit.format.sqlite.SqliteWalCheck.State wal = dev.walkit.format.sqlite.SqliteWalCheck.inspect(copy);
            // Where SQLite refuses the file (its header, the table's root or an end leaf damaged, the file cut short),
            // the rows are read out of its pages into a new database, and that is what is read.
            // (An empty file is an empty database to SQLite: it answers that it has no kine table.)
            String refusal = Files.size(copy) == 0 || sniff(copy) ? refusal(copy, inPlace) : "its first 16 bytes are not SQLite's header";
            KineSalvage.Result salvage = null;
            if (refusal != null && inPlace) {
                // The salvage works on files of its own: the copy after all.
                copyInto(stateDb, dir, "state.db");
                copy = dir.resolve("state.db");
                inPlace = false;
            }
            if (refusal != null) {
                Path damaged = dir.resolve("damaged.db");
                for (String suffix : new String[] {"", "-wal", "-shm"}) {
                    Path f = dir.resolve("state.db" + suffix);
                    if (Files.exists(f)) Files.move(f, dir.resolve("damaged.db" + suffix));
                }
                salvage = KineSalvage.salvage(damaged, refusal, copy);
                if (salvage.rows() == 0) throw new IOException(stateDb + ": not a kine database: " + refusal + ", and no page holds a row of kine's table");
            }
            return new KineDb(stateDb, dir, copy, inPlace ? connect(copy, true) : mapped(connect(copy)), wal, salvage);
        } catch (SQLException e) {
            deleteTree(dir);
            throw new IOException(stateDb + ": not a kine database: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    /**
     * Whether {@code stateDb} can be read where it is: SQLite would read nothing but the file itself (no {@code -wal}
     * with a byte in it, no rollback {@code -journal}).
     */
    private static boolean readableInPlace(Path stateDb) throws IOException {
        for (String suffix : new String[] {"-wal", "-journal"}) {
            Path side = stateDb.resolveSibling(stateDb.getFileName() + suffix);
            if (Files.exists(side) && (!Files.isRegularFile(side) || Files.size(side) > 0)) return false;
        }
        return Files.isReadable(stateDb);
    }

    /** {@code stateDb}, its -wal and -shm copied into {@code dir} as {@code name} and its companions. */
    private static void copyInto(Path stateDb, Path dir, String name) throws IOException {
        Files.copy(stateDb, dir.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
        for (String suffix : new String[] {"-wal", "-shm"}) {
            Path side = stateDb.resolveSibling(stateDb.getFileName() + suffix);
            if (Files.exists(side)) Files.copy(side, dir.resolve(name + suffix));
        }
    }

    /**
     * What SQLite says when it is asked for kine's table and its first and last rows (its header, schema, the table's
     * root and the leaves at both ends: where a reader starts), on a read-only connection that leaves the copy as it is;
     * null when it answers, or when the file has no kine table (not a kine database: said later).
     */
    private static String refusal(Path copy, boolean inPlace) {
        java.util.Properties ro = new java.util.Properties();
        ro.setProperty("open_mode", "1"); // sqlite-jdbc's SQLiteConfig.setReadOnly: SQLITE_OPEN_READONLY
        Connection opened;
        try {
            opened = DriverManager.getConnection(url(copy, inPlace), ro);
        } catch (SQLException e) {
            throw cannotStart(e); // SQLite opens lazily: this is SQLite itself not starting, not the file
        }
        try (Connection c = opened; Statement s = c.createStatement()) {
            try (java.sql.ResultSet r = s.executeQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kine'")) {
                if (!r.next()) return null;
            }
            // The table itself (NOT INDEXED): an index on id answers these without reading a page of the table.
            try (java.sql.ResultSet r = s.executeQuery("SELECT (SELECT id FROM kine NOT INDEXED ORDER BY id LIMIT 1), "
                    + "(SELECT id FROM kine NOT INDEXED ORDER BY id DESC LIMIT 1)")) {
                r.next();
            }
            long pages;
            long pageSize;
            try (java.sql.ResultSet r = s.executeQuery("PRAGMA page_count")) {
                pages = r.next() ? r.getLong(1) : 0;
            }
            try (java.sql.ResultSet r = s.executeQuery("PRAGMA page_size")) {
                pageSize = r.next() ? r.getLong(1) : 0;
            }
            // A file cut short: SQLite reads the missing pages as zeros, and may say nothing.
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(copy)) {
                long have = ch.size() / Math.max(1, pageSize);
                if (pages > have && !walHolds(copy, have, pages)) return "the file holds " + have + " of the " + pages + " pages SQLite counts: cut short";
            }
            return null;
        } catch (IOException e) {
            return e.getMessage();
        } catch (SQLException e) {
            String m = e.getMessage();
            if (m == null) return e.toString();
            // sqlite-jdbc's "[SQLITE_CORRUPT] The database disk image is malformed (database disk image is malformed)": once.
            m = m.replaceFirst("^\\[SQLITE_[A-Z_]+\\]\\s*", "");
            java.util.regex.Matcher twice = java.util.regex.Pattern.compile("^(.*) \\((.*)\\)$").matcher(m);
            return twice.matches() && twice.group(1).equalsIgnoreCase(twice.group(2)) ? twice.group(2) : m;
        }
    }

    /** Whether the committed frames of {@code copy}'s -wal hold every page from {@code from} + 1 to {@code to}. */
    private static boolean walHolds(Path copy, long from, long to) {
        try (dev.walkit.format.sqlite.SqlitePages p = dev.walkit.format.sqlite.SqlitePages.open(copy)) {
            byte[] page = new byte[p.pageSize()];
            for (long n = from + 1; n <= to; n++) if (!p.read(n, page)) return false;
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * SQLite read the table but not all of it ({@code unreadable}: the rows a damaged page held, as the read named them,
     * {@code rowsRead} read): its rows are read from the pages instead, as sqlite3's .recover reads them (every table
     * leaf page, the -wal's frames over them), and when that read has more rows it is what this db is from now on (the
     * caller reads it again; true). Call it when no other connection reads the copy (quick_check joined).
     */
    public boolean salvageInstead(List<String> unreadable, long rowsRead) throws IOException {
        if (salvage != null || unreadable.isEmpty()) return false;
        Path damaged = copyDir.resolve("read-around.db");
        Path rebuilt = copyDir.resolve("salvaged.db");
        copyInto(file, copyDir, "read-around.db");
        String why = "SQLite could not read every row of kine's table: " + unreadable.get(0) + (unreadable.size() > 1 ? "; and " + (unreadable.size() - 1) + " more" : "");
        KineSalvage.Result r = KineSalvage.salvage(damaged, why, rebuilt);
        if (keyRows(rebuilt) <= rowsRead) {
            Files.deleteIfExists(rebuilt);
            return false;
        }
        try {
            connection.close();
            for (String suffix : new String[] {"", "-wal", "-shm"}) Files.deleteIfExists(copyDir.resolve("state.db" + suffix));
            Files.move(rebuilt, copyDir.resolve("state.db"));
            file = copyDir.resolve("state.db");
            connection = mapped(connect(file));
        } catch (SQLException e) {
            throw new IOException(source + ": the rows read from its pages could not be opened: " + e.getMessage(), e);
        }
        salvage = r;
        return true;
    }

    /** The rows of {@code db} that are keys' (kine's own rows left out), as a read of the table counts them. */
    private static long keyRows(Path db) throws IOException {
        try (Connection c = connect(db); Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT CAST(name AS BLOB) FROM kine")) {
            long n = 0;
            while (r.next()) {
                byte[] name = r.getBytes(1);
                if (name != null && !internal(name)) n++;
            }
            return n;
        } catch (SQLException e) {
            throw new IOException(db + ": the rows read from its pages could not be counted: " + e.getMessage(), e);
        }
    }

    /** What SQLite refused, and what was read from the pages instead; null when SQLite read the file. */
    public KineSalvage.Result salvage() {
        return salvage;
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
        return connect(file, file.equals(source));
    }

    /**
     * Opens the SQLite file. SQLite opens lazily: this fails only when SQLite itself cannot start (its
     * native library did not load: no build for this platform, or a temp directory it cannot run
     * from), which says nothing about the database: that is not exit 4's "unreadable input".
     */
    private static Connection connect(Path db) {
        return connect(db, false);
    }

    /** {@link #connect(Path)}; {@code inPlace}: the source itself, read-only and immutable ({@link #url}). */
    private static Connection connect(Path db, boolean inPlace) {
        try {
            return DriverManager.getConnection(url(db, inPlace));
        } catch (SQLException e) {
            throw cannotStart(e);
        }
    }

    /**
     * The driver's URL of {@code db}; read in place, a URI filename that opens it read-only ({@code mode=ro}) and
     * {@code immutable=1}: SQLite takes no lock, makes no {@code -shm} or {@code -wal} and writes nothing.
     */
    static String url(Path db, boolean inPlace) {
        if (!inPlace) return "jdbc:sqlite:" + db;
        // A URI's path: '%', '?' and '#' (and anything not printable ASCII) percent-encoded, '/' kept.
        StringBuilder u = new StringBuilder("jdbc:sqlite:file:");
        for (byte b : db.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c > 0x20 && c < 0x7F && c != '%' && c != '?' && c != '#') u.append((char) c);
            else u.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
        }
        return u.append("?mode=ro&immutable=1").toString();
    }

    /** SQLite could not start (its native library did not load): what to do about it. */
    private static IllegalStateException cannotStart(SQLException e) {
        Throwable root = e;
        while (root.getCause() != null) root = root.getCause();
        return new IllegalStateException("cannot start SQLite (" + e.getMessage() + (root != e ? ": " + root : "")
                + "); sqlite-jdbc extracts its native library into java.io.tmpdir: if that is mounted noexec, set JAVA_OPTS=-Dorg.sqlite.tmpdir=DIR", e);
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

    /** The db read as kine serves it (its live set, its rows after an id), on this db's connection. */
    public KineLive live() {
        return KineLive.of(this);
    }

    public Path source() {
        return source;
    }

    /** The database file read: the private copy (its -wal beside it), or the source when read in place. */
    Path file() {
        return file;
    }

    /** Whether the source is read where it is (it has no -wal to read), not from a copy. */
    public boolean readInPlace() {
        return file.equals(source);
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
