package dev.walkit.format.kine;

import dev.walkit.format.sqlite.SqlitePages;
import dev.walkit.format.sqlite.TableCursor;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * kine's table read from its pages ({@link TableCursor} over the private copy and its -wal), in id order, as
 * {@link KineRows}' query reads it through SQLite, without a native call a column: id (the rowid: kine's {@code id
 * INTEGER PRIMARY KEY}), name (a text's or blob's bytes), created and deleted (integers, a null 0), create_revision
 * and lease (integers, a null 0), the value (bytes, or its length). SQLite gives where the table's b-tree starts and
 * where each column is ({@code sqlite_master}, {@code table_info}), and its page count must be the one found here
 * (the same committed frames of the -wal). A row this reader does not take as it is (a column of another type, a
 * record shorter than the table) or a page it finds damaged ends its part: SQLite reads on from there.
 */
final class KineTable implements AutoCloseable {
    private final SqlitePages pages;
    final TableCursor cursor;
    private final int name;
    private final int created;
    private final int deleted;
    private final int createRevision;
    private final int lease;
    private final int value;
    private final int wanted;
    /** Why the last row was not taken, or null. */
    private String refused;

    private KineTable(SqlitePages pages, long root, int[] at) {
        this.pages = pages;
        this.name = at[0];
        this.created = at[1];
        this.deleted = at[2];
        this.createRevision = at[3];
        this.lease = at[4];
        this.value = at[5];
        int max = 0;
        for (int c : at) max = Math.max(max, c);
        this.wanted = max + 1;
        this.cursor = TableCursor.open(pages, root, wanted);
    }

    /** The columns read, by name; the first is the rowid. */
    private static final String[] COLUMNS = {"name", "created", "deleted", "create_revision", "lease", "value"};

    /**
     * kine's table in {@code db} read from its pages, or null with the reason in {@code why[0]} when SQLite is to read
     * it (a schema or a file this reader does not take).
     */
    static KineTable open(KineDb db, String[] why) {
        Connection c = db.connection();
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("PRAGMA encoding")) {
                if (!r.next() || !"UTF-8".equals(r.getString(1))) return refuse(why, "a text encoding other than UTF-8");
            }
            long root;
            try (ResultSet r = s.executeQuery("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'kine'")) {
                if (!r.next()) return refuse(why, "no table kine");
                root = r.getLong(1);
            }
            Map<String, Integer> cid = new HashMap<>();
            int pk = 0;
            boolean idIsRowid = false;
            try (ResultSet r = s.executeQuery("PRAGMA table_info(kine)")) {
                while (r.next()) {
                    String col = r.getString(2);
                    cid.put(col, r.getInt(1));
                    if (r.getInt(6) != 0) {
                        pk++;
                        idIsRowid = "id".equals(col) && "INTEGER".equalsIgnoreCase(r.getString(3));
                    }
                }
            }
            if (pk != 1 || !idIsRowid) return refuse(why, "id is not the table's INTEGER PRIMARY KEY");
            int[] at = new int[COLUMNS.length];
            for (int i = 0; i < COLUMNS.length; i++) {
                Integer n = cid.get(COLUMNS[i]);
                if (n == null) return refuse(why, "no column " + COLUMNS[i]);
                at[i] = n;
            }
            long pageCount;
            try (ResultSet r = s.executeQuery("PRAGMA page_count")) {
                pageCount = r.next() ? r.getLong(1) : -1;
            }
            SqlitePages pages = SqlitePages.open(db.file());
            if (pages.pageCount() != pageCount) {
                pages.close();
                return refuse(why, "SQLite counts " + pageCount + " pages, the file and its -wal " + pages.pageCount());
            }
            return new KineTable(pages, root, at);
        } catch (SQLException | IOException e) {
            return refuse(why, e.getMessage());
        }
    }

    private static KineTable refuse(String[] why, String reason) {
        why[0] = reason;
        return null;
    }

    /**
     * The current row into {@code b} at {@code i} (id, name, flags, create_revision, lease, the value or with
     * {@code values} false its length): false when this reader does not take it ({@link #stopped()} says why).
     */
    boolean row(KineRows.Batch b, int i, boolean values) {
        TableCursor c = cursor;
        if (c.columns() < wanted) return refuse("row " + c.rowid() + " has " + c.columns() + " columns");
        byte[] n = null;
        if (!c.isNull(name)) {
            if (!c.isBytes(name)) return refuse("row " + c.rowid() + "'s name is of serial type " + c.serialType(name));
            n = c.bytes(name);
        }
        if (!intOrNull(created) || !intOrNull(deleted) || !intOrNull(createRevision) || !intOrNull(lease)) {
            return refuse("row " + c.rowid() + " has a number that is not an integer");
        }
        byte[] v = null;
        int length = 0;
        if (!c.isNull(value)) {
            if (!c.isBytes(value)) return refuse("row " + c.rowid() + "'s value is of serial type " + c.serialType(value));
            if (values) {
                v = c.bytes(value);
                length = v == null ? 0 : v.length;
            } else {
                length = c.length(value);
            }
        }
        b.id[i] = c.rowid();
        b.name[i] = n;
        b.created[i] = integer(created) != 0;
        b.deleted[i] = integer(deleted) != 0;
        b.createRevision[i] = integer(createRevision);
        b.lease[i] = integer(lease);
        b.value[i] = v;
        b.valueLength[i] = length;
        return c.stopped() == null; // an overflow page that broke off while the row was read
    }

    private boolean intOrNull(int col) {
        return cursor.isNull(col) || cursor.isInteger(col);
    }

    private long integer(int col) {
        return cursor.isNull(col) ? 0 : cursor.integer(col);
    }

    private boolean refuse(String why) {
        refused = why;
        return false;
    }

    /** Why this reader stopped before the table's end (damage it found, or a row it does not take), or null. */
    String stopped() {
        return cursor.stopped() != null ? cursor.stopped() : refused;
    }

    @Override
    public void close() throws IOException {
        pages.close();
    }
}
