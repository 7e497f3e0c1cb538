package dev.walkit.format.kine;

import dev.walkit.format.sqlite.SqlitePages;
import dev.walkit.format.sqlite.TableCursor;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;

/**
 * kine's rows read from the pages of a database SQLite refuses (its header, the table's root or first leaf damaged,
 * the file cut short), as sqlite3's {@code .recover} reads them: every table leaf page, each cell a record, and the
 * records of kine's shape its rows (the rowid alias id stored as NULL, then name, created, deleted, create_revision,
 * prev_revision, lease, value and old_value). They are written into a new database of kine's table, which every
 * tool then reads as it reads any kine db. Rows on pages that are gone are lost; a row found on two pages (a stale
 * copy on a freed page) is taken once, from the lower-numbered page.
 */
public final class KineSalvage {
    /** kine's page size first (SQLite's default), then every other SQLite allows. */
    static final int[] PAGE_SIZES = {4096, 1024, 2048, 8192, 16384, 32768, 65536, 512};
    /** Pages looked at to tell the page size and whether the file holds kine's rows at all. */
    private static final int SNIFF_PAGES = 256;
    private static final int LEAF = 0x0d;
    private static final int COLUMNS = 9;

    /**
     * What a salvage read.
     *
     * @param refusal   what SQLite said of the file
     * @param pageSize  the page size the pages were read at
     * @param pages     pages in the file (and its -wal)
     * @param leaves    table leaf pages that held kine's rows
     * @param rows      rows read
     * @param copies    rows found again on another page, taken once
     */
    public record Result(String refusal, int pageSize, long pages, long leaves, long rows, long copies) {
        /** The store's damage line. */
        public String damage(String name) {
            return "SQLite refuses " + name + " (" + refusal + "): its rows were read from its pages, as sqlite3's .recover reads them: "
                    + rows + " row(s) from " + leaves + " of " + pages + " page(s)" + (copies > 0 ? " (" + copies + " copies on other pages taken once)" : "")
                    + "; rows on pages that are gone are lost";
        }
    }

    private KineSalvage() {
    }

    /**
     * Whether {@code file} is laid out in SQLite's b-tree pages whatever its header says, and holds kine's rows: at
     * some page size, pages 2 to 9 begin as b-tree pages (a type, a free-block offset, a cell count and a content
     * start that fit the page), then {@link #pageSize} finds kine's rows. Cheap for a file that is not: 8 bytes read
     * at 8 places for each page size.
     */
    public static boolean looksPaged(Path file) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(8);
            for (int size : PAGE_SIZES) {
                int plausible = 0;
                for (int n = 2; n <= 9; n++) {
                    h.clear();
                    long at = (long) (n - 1) * size;
                    while (h.hasRemaining() && ch.read(h, at + h.position()) > 0) {
                        // read on
                    }
                    if (h.hasRemaining()) break;
                    int type = h.get(0) & 0xff;
                    int cells = h.getShort(3) & 0xffff;
                    int content = h.getShort(5) & 0xffff;
                    int header = type == 0x05 || type == 0x02 ? 12 : 8;
                    if ((type == 0x02 || type == 0x05 || type == 0x0a || type == LEAF) && header + 2 * cells <= size
                            && (content == 0 ? size == 65536 : content >= header + 2 * cells && content <= size)) {
                        plausible++;
                    }
                }
                if (plausible >= 6 && pageSize(file) > 0) return true;
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether {@code file} holds kine's rows in pages of some size: the page size, or 0. The size the file's header
     * declares (or, its header gone, its {@code -wal}'s) when rows are read at it: at another size a page read twice as
     * large holds a whole page and the start of the next, and reads as rows too (a db of 4 KiB pages salvaged at 8 KiB
     * lost half its rows); else the size at which the first pages hold the most rows.
     */
    public static int pageSize(Path file) {
        int declared = declaredPageSize(file);
        if (declared > 0) {
            try (SqlitePages pages = SqlitePages.openDamaged(file, declared)) {
                if (scan(pages, Math.min(pages.pageCount(), SNIFF_PAGES), null, null)[1] > 0) return declared;
            } catch (IOException | RuntimeException e) {
                // not readable at that size: as if none were declared
            }
        }
        int best = 0;
        long bestRows = 0;
        for (int size : PAGE_SIZES) {
            try (SqlitePages pages = SqlitePages.openDamaged(file, size)) {
                long rows = scan(pages, Math.min(pages.pageCount(), SNIFF_PAGES), null, null)[1];
                if (rows > bestRows) {
                    best = size;
                    bestRows = rows;
                }
            } catch (IOException | RuntimeException e) {
                // not at this size
            }
        }
        return best;
    }

    /**
     * The page size {@code file}'s header declares (after SQLite's 16-byte magic, big-endian; 1 means 65536), or when the
     * header is not SQLite's, its {@code -wal} header's (magic 0x377f0682 or 0x377f0683, the size at byte 8); 0 when
     * neither says a size SQLite allows.
     */
    static int declaredPageSize(Path file) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(18);
            while (h.hasRemaining() && ch.read(h, h.position()) > 0) {
                // read on
            }
            if (!h.hasRemaining() && new String(h.array(), 0, 16, java.nio.charset.StandardCharsets.ISO_8859_1).equals("SQLite format 3\0")) {
                int raw = h.getShort(16) & 0xffff;
                int size = raw == 1 ? 65536 : raw;
                if (allowed(size)) return size;
            }
        } catch (IOException e) {
            return 0;
        }
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(wal)) {
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(12);
            while (h.hasRemaining() && ch.read(h, h.position()) > 0) {
                // read on
            }
            int magic = h.getInt(0);
            if (!h.hasRemaining() && (magic == 0x377f0682 || magic == 0x377f0683) && allowed(h.getInt(8))) return h.getInt(8);
        } catch (IOException e) {
            // no -wal
        }
        return 0;
    }

    private static boolean allowed(int size) {
        return size >= 512 && size <= 65536 && Integer.bitCount(size) == 1;
    }

    /** Reads kine's rows out of {@code damaged}'s pages into a new database at {@code rebuilt}. */
    static Result salvage(Path damaged, String refusal, Path rebuilt) throws IOException {
        int size = pageSize(damaged);
        if (size == 0) return new Result(refusal, 0, 0, 0, 0, 0);
        try (SqlitePages pages = SqlitePages.openDamaged(damaged, size);
             Connection c = DriverManager.getConnection("jdbc:sqlite:" + rebuilt)) {
            try (Statement s = c.createStatement()) {
                // kine's table as kine v0.6.5 creates it (the indexes walkit's reads use; no unique index: stale copies differ).
                s.execute("CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name INTEGER, created INTEGER, deleted INTEGER, "
                        + "create_revision INTEGER, prev_revision INTEGER, lease INTEGER, value BLOB, old_value BLOB)");
                s.execute("CREATE INDEX kine_name_index ON kine (name)");
                s.execute("CREATE INDEX kine_name_id_index ON kine (name, id)");
            }
            c.setAutoCommit(false);
            long[] counts;
            try (PreparedStatement insert = c.prepareStatement("INSERT OR IGNORE INTO kine VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                counts = scan(pages, pages.pageCount(), insert, new HashSet<>());
                insert.executeBatch();
            }
            c.commit();
            return new Result(refusal, size, pages.pageCount(), counts[0], counts[1], counts[2]);
        } catch (SQLException e) {
            throw new IOException(rebuilt + ": the salvaged rows could not be written: " + e.getMessage(), e);
        }
    }

    /**
     * Pages 2..{@code last}: {leaf pages with kine's rows, rows, copies}; each row into {@code insert} when given
     * (a row id already in {@code seen} is a copy, not inserted again).
     */
    private static long[] scan(SqlitePages pages, long last, PreparedStatement insert, Set<Long> seen) throws IOException {
        byte[] page = new byte[pages.pageSize()];
        long leaves = 0;
        long rows = 0;
        long copies = 0;
        java.util.BitSet free = freePages(pages);
        for (long n = 2; n <= last; n++) {
            if (n < Integer.MAX_VALUE && free.get((int) n)) continue;
            if (!pages.read(n, page) || (page[0] & 0xff) != LEAF) continue;
            TableCursor cur = TableCursor.open(pages, n, COLUMNS);
            boolean any = false;
            while (cur.next()) {
                if (!kineShaped(cur)) continue;
                byte[] name = cur.bytes(1);
                if (name == null) continue;
                byte[] value = cur.isNull(7) ? null : cur.bytes(7);
                byte[] old = cur.columns() < 9 || cur.isNull(8) ? null : cur.bytes(8);
                if ((!cur.isNull(7) && value == null) || cur.stopped() != null) continue; // an overflow chain broken off
                any = true;
                if (seen != null && !seen.add(cur.rowid())) {
                    copies++;
                    continue;
                }
                rows++;
                if (insert != null) {
                    try {
                        insert.setLong(1, cur.rowid());
                        insert.setBytes(2, name);
                        for (int c = 2; c <= 6; c++) {
                            if (cur.isNull(c)) insert.setNull(c + 1, java.sql.Types.INTEGER);
                            else insert.setLong(c + 1, cur.integer(c));
                        }
                        insert.setBytes(8, value);
                        insert.setBytes(9, old);
                        insert.addBatch();
                        if (rows % 1000 == 0) insert.executeBatch();
                    } catch (SQLException e) {
                        throw new IOException("a salvaged row could not be written: " + e.getMessage(), e);
                    }
                }
            }
            if (any) leaves++;
        }
        return new long[] {leaves, rows, copies};
    }

    /**
     * The pages on the database's freelist, when its header (page 1, from the -wal when it holds a newer one) is SQLite's:
     * the trunk pages (4 bytes: the next trunk; 4 bytes: the count; then the leaf page numbers) and the pages they list.
     * What they hold is deleted rows (kine's compaction deletes rows): not read, as .recover trusts the freelist too.
     * Empty when the header is not SQLite's or the list runs out of the file or loops: every page is read then.
     */
    static java.util.BitSet freePages(SqlitePages pages) {
        java.util.BitSet free = new java.util.BitSet();
        byte[] p = new byte[pages.pageSize()];
        if (!pages.read(1, p) || !new String(p, 0, 16, java.nio.charset.StandardCharsets.ISO_8859_1).equals("SQLite format 3\0")) return free;
        java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(p);
        long trunk = h.getInt(32) & 0xffffffffL;
        long total = h.getInt(36) & 0xffffffffL;
        long count = pages.pageCount();
        java.util.BitSet found = new java.util.BitSet();
        while (trunk != 0) {
            if (trunk < 2 || trunk > count || found.get((int) trunk) || !pages.read(trunk, p)) return new java.util.BitSet();
            found.set((int) trunk);
            long leaves = h.getInt(4) & 0xffffffffL;
            if (8 + 4 * leaves > pages.usableSize()) return new java.util.BitSet();
            for (int i = 0; i < leaves; i++) {
                long leaf = h.getInt(8 + 4 * i) & 0xffffffffL;
                if (leaf < 2 || leaf > count) return new java.util.BitSet();
                found.set((int) leaf);
            }
            trunk = h.getInt(0) & 0xffffffffL;
        }
        if (found.cardinality() != total) return new java.util.BitSet(); // the header's count disagrees: trust no part of it
        free.or(found);
        return free;
    }

    /** A record of kine's table: id stored as NULL (the rowid), a name's bytes, five integers (or NULL), a value's bytes (or NULL). */
    private static boolean kineShaped(TableCursor c) {
        if (c.columns() < 8 || !c.isNull(0) || !c.isBytes(1)) return false;
        for (int i = 2; i <= 6; i++) if (!c.isNull(i) && !c.isInteger(i)) return false;
        if (!c.isNull(7) && !c.isBytes(7)) return false;
        return c.columns() < 9 || c.isNull(8) || c.isBytes(8);
    }
}
