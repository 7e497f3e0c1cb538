package dev.walkit.format.sqlite;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * An SQLite database's pages as a reader sees them once its write-ahead log is recovered, read-only and mapped:
 * the database file (sqlite.org/fileformat2.html §1: a 100-byte header on page 1 giving the page size at offset 16,
 * 1 for 65536, and the bytes reserved at the end of each page at offset 20), each page replaced by its latest
 * committed frame in {@code -wal} ({@link SqliteWal}). Pages are numbered from 1; the database holds as many as
 * the last commit says, else the header's count when it is current (its change counter at 24 equal to the
 * version-valid-for number at 92), else the file's size in pages. Nothing here is written: callers open a private
 * copy.
 */
public final class SqlitePages implements Closeable {
    private static final byte[] MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
    /**
     * The database file is read through a window of this many bytes (a multiple of every page size: a page never
     * crosses one), read whole by one pread: a table's leaves lie mostly in runs, and a copy out of the page cache into
     * a buffer that stays in the core's cache costs less than a mapping's page faults (as for bbolt's pages).
     */
    private static final int WINDOW = 1 << 16;

    private final FileChannel db;
    private final FileChannel walChannel;
    private final long size;
    private final ByteBuffer window = ByteBuffer.allocate(WINDOW);
    /** Where the window starts in the file; -1 while empty. */
    private long windowAt = -1;
    private int windowBytes;
    private final ByteBuffer walMap;
    private final SqliteWal wal;
    private final int pageSize;
    private final int usableSize;
    private final int pageCount;

    private SqlitePages(FileChannel db, FileChannel walChannel, long size, ByteBuffer walMap, SqliteWal wal,
                        int pageSize, int usableSize, int pageCount) {
        this.db = db;
        this.walChannel = walChannel;
        this.size = size;
        this.walMap = walMap;
        this.wal = wal;
        this.pageSize = pageSize;
        this.usableSize = usableSize;
        this.pageCount = pageCount;
    }

    /**
     * Opens {@code file} and its {@code -wal} when there is one; an {@link IOException} for a file that is not an
     * SQLite 3 database this reader can take (its header says so).
     */
    public static SqlitePages open(Path file) throws IOException {
        FileChannel db = FileChannel.open(file, StandardOpenOption.READ);
        FileChannel w = null;
        try {
            long size = db.size();
            Path walFile = file.resolveSibling(file.getFileName() + "-wal");
            if (Files.isRegularFile(walFile)) {
                w = FileChannel.open(walFile, StandardOpenOption.READ);
                if (w.size() > Integer.MAX_VALUE) throw new IOException(walFile + ": a -wal file of 2 GiB or more (read by SQLite)");
            }
            // The page size from the file's header; from the -wal's when the file is still empty (a database
            // created in WAL mode whose first pages are all in the log).
            ByteBuffer h = ByteBuffer.allocate(100);
            read(db, h, 0);
            int pageSize;
            if (!h.hasRemaining()) {
                if (!Arrays.equals(Arrays.copyOf(h.array(), MAGIC.length), MAGIC)) throw new IOException(file + ": not an SQLite 3 database");
                int raw = Short.toUnsignedInt(h.getShort(16));
                pageSize = raw == 1 ? 65536 : raw;
            } else if (size == 0 && w != null && w.size() >= SqliteWal.HEADER) {
                ByteBuffer wh = ByteBuffer.allocate(SqliteWal.HEADER);
                read(w, wh, 0);
                pageSize = wh.getInt(8);
            } else {
                throw new IOException(file + ": not an SQLite 3 database");
            }
            if (pageSize < 512 || pageSize > 65536 || Integer.bitCount(pageSize) != 1) throw new IOException(file + ": page size " + pageSize);
            SqliteWal wal = w == null ? SqliteWal.EMPTY : SqliteWal.read(w, pageSize);
            ByteBuffer walMap = wal.isEmpty() ? null : w.map(FileChannel.MapMode.READ_ONLY, 0, w.size());
            // The header as the log left it: page 1's latest committed frame, else the file's.
            long page1 = wal.offsetOf(1);
            if (page1 >= 0) h = walMap.slice((int) page1, 100);
            if (h.hasRemaining() && page1 < 0) throw new IOException(file + ": not an SQLite 3 database");
            if (!Arrays.equals(Arrays.copyOf(bytes(h, 16), MAGIC.length), MAGIC)) throw new IOException(file + ": page 1 is not an SQLite 3 header");
            int raw = Short.toUnsignedInt(h.getShort(16));
            if ((raw == 1 ? 65536 : raw) != pageSize) throw new IOException(file + ": page size " + raw + " in page 1, " + pageSize + " in the -wal");
            int reserved = Byte.toUnsignedInt(h.get(20));
            int usable = pageSize - reserved;
            if (usable < 480) throw new IOException(file + ": " + reserved + " bytes reserved of each page of " + pageSize);
            long filePages = size / pageSize;
            int count;
            if (wal.databasePages() > 0) count = wal.databasePages();
            else if (h.getInt(28) != 0 && h.getInt(24) == h.getInt(92)) count = h.getInt(28);
            else count = (int) Math.min(filePages, Integer.MAX_VALUE);
            return new SqlitePages(db, w, size, walMap, wal, pageSize, usable, count);
        } catch (IOException | RuntimeException e) {
            db.close();
            if (w != null) w.close();
            throw e;
        }
    }

    /**
     * Opens {@code file} whose header SQLite refuses, read as {@code pageSize}-byte pages with none reserved (a salvage
     * reads what the pages still hold): its committed {@code -wal} frames when the log is of that page size; as many
     * pages as the file and the log's last commit hold.
     */
    public static SqlitePages openDamaged(Path file, int pageSize) throws IOException {
        FileChannel db = FileChannel.open(file, StandardOpenOption.READ);
        FileChannel w = null;
        try {
            long size = db.size();
            Path walFile = file.resolveSibling(file.getFileName() + "-wal");
            SqliteWal wal = SqliteWal.EMPTY;
            ByteBuffer walMap = null;
            if (Files.isRegularFile(walFile) && Files.size(walFile) < Integer.MAX_VALUE) {
                w = FileChannel.open(walFile, StandardOpenOption.READ);
                wal = SqliteWal.read(w, pageSize);
                if (!wal.isEmpty()) walMap = w.map(FileChannel.MapMode.READ_ONLY, 0, w.size());
            }
            long pages = Math.max((size + pageSize - 1) / pageSize, wal.databasePages());
            return new SqlitePages(db, w, size, walMap, wal, pageSize, pageSize, (int) Math.min(pages, Integer.MAX_VALUE));
        } catch (IOException | RuntimeException e) {
            db.close();
            if (w != null) w.close();
            throw e;
        }
    }

    private static void read(FileChannel ch, ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
            // read on
        }
    }

    private static byte[] bytes(ByteBuffer b, int n) {
        byte[] out = new byte[n];
        b.get(0, out);
        return out;
    }

    public int pageSize() {
        return pageSize;
    }

    /** The page size less the bytes reserved at the end of each page. */
    public int usableSize() {
        return usableSize;
    }

    /** Pages in the database (as the last commit left it). */
    public int pageCount() {
        return pageCount;
    }

    /**
     * Copies page {@code n} into {@code dst} (at least {@link #pageSize()} bytes): false when there is no such page.
     * A parser reads a page copied into an array several times as fast as through a mapped buffer's checked reads.
     */
    public boolean read(long n, byte[] dst) {
        if (n < 1 || n > pageCount) return false;
        long walAt = wal.offsetOf((int) n);
        if (walAt >= 0) {
            walMap.get((int) walAt, dst, 0, pageSize);
            return true;
        }
        long at = (n - 1) * pageSize;
        if (at + pageSize > size) return false;
        long start = at - at % WINDOW;
        if (start != windowAt) {
            window.clear();
            try {
                while (window.hasRemaining() && db.read(window, start + window.position()) > 0) {
                    // read on
                }
            } catch (IOException e) {
                windowAt = -1;
                readError = e.toString();
                return false;
            }
            windowAt = start;
            windowBytes = window.position();
        }
        int in = (int) (at - start);
        if (in + pageSize > windowBytes) return false;
        System.arraycopy(window.array(), in, dst, 0, pageSize);
        return true;
    }

    /** Why {@code page}, which {@link #read} did not give, is not there: past the database, or the read's failure. */
    public String missing(long page) {
        return readError != null ? "page " + page + " could not be read: " + readError : "page " + page + " is past the database";
    }

    private String readError;

    @Override
    public void close() throws IOException {
        try {
            db.close();
        } finally {
            if (walChannel != null) walChannel.close();
        }
    }
}
