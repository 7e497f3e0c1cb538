package dev.walkit.format.sqlite;

/**
 * A table's rows in rowid order, read from its b-tree's pages (sqlite.org/fileformat2.html §1.6, §2.1): interior
 * pages (type 0x05: a 12-byte header, cells of a 4-byte left child and a rowid varint, the right-most child at offset
 * 8) and leaf pages (0x0d: an 8-byte header, cells of the payload's size and the rowid as varints, the payload's
 * first bytes and, when it spills, the first overflow page), the cell pointers (2 bytes each) after the header.
 * A payload of P bytes keeps P on the page when P &lt;= U-35, else K = M + (P-M) % (U-4) when that fits, else M =
 * (U-12)*32/255 - 23 (U the usable page size); the rest runs through overflow pages (a 4-byte next page, U-4
 * bytes). A row's record: a header (its size, then a serial type per column) and the columns' bytes in turn.
 *
 * <p>Every page number, offset and length read from the file is checked before it is used, and rowids must rise:
 * anything else stops the walk ({@link #stopped()} says why) after the last row that read whole. The caller then
 * reads on by SQLite itself, which knows its format in full; this reader takes only what a table of plain rows
 * needs, and stops where it is not sure (a record header that spills, a page reached twice).
 */
public final class TableCursor {
    private static final int INTERIOR = 0x05;
    private static final int LEAF = 0x0d;
    /** Deeper than any b-tree of 2^32 pages: a cycle in damaged pages stops here. */
    private static final int MAX_DEPTH = 40;
    /** Serial types read of each record: the first this many columns. */
    private final int columnsWanted;

    private final SqlitePages pages;
    private final int usable;
    private final int maxLocal;
    private final int minLocal;
    /** Each level's page, copied into an array of its own (made when first reached). */
    private final byte[][] stackPage = new byte[MAX_DEPTH][];
    private final int[] stackCell = new int[MAX_DEPTH];
    private final int[] stackCount = new int[MAX_DEPTH];
    private final boolean[] stackLeaf = new boolean[MAX_DEPTH];
    private int depth;
    private long pagesVisited;
    private String stopped;
    private boolean ended;
    private boolean anyRow;

    /** A page of an overflow chain. */
    private byte[] overflow;
    // The current row.
    private byte[] page;
    private int payloadAt;
    private int local;
    private long payloadSize;
    private long firstOverflow;
    private long rowid = Long.MIN_VALUE;
    private int columns;
    private final long[] type;
    private final long[] at;

    private TableCursor(SqlitePages pages, int columnsWanted) {
        this.pages = pages;
        this.columnsWanted = columnsWanted;
        this.usable = pages.usableSize();
        this.maxLocal = usable - 35;
        this.minLocal = (usable - 12) * 32 / 255 - 23;
        this.type = new long[columnsWanted];
        this.at = new long[columnsWanted];
    }

    /** A cursor before the first row of the table whose b-tree's root is {@code rootPage}; its first {@code columns} columns read. */
    public static TableCursor open(SqlitePages pages, long rootPage, int columns) {
        TableCursor c = new TableCursor(pages, columns);
        c.push(rootPage);
        return c;
    }

    /** Why the walk stopped before the table's end, or null (reading, or read to the end). */
    public String stopped() {
        return stopped;
    }

    private boolean stop(String why) {
        if (stopped == null) stopped = why;
        return false;
    }

    private void push(long n) {
        if (depth == MAX_DEPTH) {
            stop("the b-tree is deeper than " + MAX_DEPTH + " pages (a cycle)");
            return;
        }
        if (n < 2) {
            stop("a child page " + n);
            return;
        }
        if (stackPage[depth] == null) stackPage[depth] = new byte[pages.pageSize()];
        byte[] p = stackPage[depth];
        if (!pages.read(n, p)) {
            stop(pages.missing(n));
            return;
        }
        if (++pagesVisited > pages.pageCount()) {
            stop("more pages reached than the database holds (a cycle)");
            return;
        }
        int t = p[0] & 0xff;
        if (t != INTERIOR && t != LEAF) {
            stop("page " + n + " is of type " + t + ", not a table b-tree page");
            return;
        }
        int count = u16(p, 3);
        int header = t == LEAF ? 8 : 12;
        if (header + 2L * count > usable) {
            stop("page " + n + " has " + count + " cells, more than it can hold");
            return;
        }
        stackCell[depth] = 0;
        stackCount[depth] = count;
        stackLeaf[depth] = t == LEAF;
        depth++;
    }

    /** Moves to the next row: false at the end of the table or where the walk stopped ({@link #stopped()}). */
    public boolean next() {
        if (ended || stopped != null) return false;
        while (depth > 0) {
            int d = depth - 1;
            byte[] p = stackPage[d];
            int i = stackCell[d];
            int count = stackCount[d];
            if (stackLeaf[d]) {
                if (i < count) {
                    stackCell[d] = i + 1;
                    return cell(p, u16(p, 8 + 2 * i), 8 + 2 * count);
                }
                depth--;
                continue;
            }
            if (i <= count) {
                stackCell[d] = i + 1;
                long child;
                if (i < count) {
                    int cell = u16(p, 12 + 2 * i);
                    if (cell < 12 + 2 * count || cell + 4 > usable) return stop("a cell pointer " + cell + " out of its page");
                    child = u32(p, cell);
                } else {
                    child = u32(p, 8);
                }
                push(child);
                if (stopped != null) return false;
                continue;
            }
            depth--;
        }
        ended = true;
        return false;
    }

    private int varintLength;

    /** SQLite's varint at {@code i} (big-endian, 7 bits a byte, the ninth byte whole), its length in {@link #varintLength}, 0 when it runs past {@code limit}. */
    private long varint(byte[] p, int i, int limit) {
        long v = 0;
        varintLength = 0;
        for (int n = 0; n < 8; n++) {
            if (i + n >= limit) return -1;
            int b = p[i + n];
            v = (v << 7) | (b & 0x7f);
            if (b >= 0) {
                varintLength = n + 1;
                return v;
            }
        }
        if (i + 8 >= limit) return -1;
        varintLength = 9;
        return (v << 8) | (p[i + 8] & 0xff);
    }

    private static int u16(byte[] p, int i) {
        return ((p[i] & 0xff) << 8) | (p[i + 1] & 0xff);
    }

    private static long u32(byte[] p, int i) {
        return ((long) (p[i] & 0xff) << 24) | ((p[i + 1] & 0xff) << 16) | ((p[i + 2] & 0xff) << 8) | (p[i + 3] & 0xff);
    }

    private boolean cell(byte[] p, int cell, int cellsEnd) {
        if (cell < cellsEnd || cell >= usable) return stop("a cell pointer " + cell + " out of its page");
        long size = varint(p, cell, usable);
        if (varintLength == 0 || size < 0) return stop("a cell runs off its page");
        int i = cell + varintLength;
        long id = varint(p, i, usable);
        if (varintLength == 0) return stop("a cell runs off its page");
        i += varintLength;
        if (anyRow && id <= rowid) return stop("rowid " + id + " after " + rowid + ": not in order");
        if (size > (long) pages.pageCount() * usable) return stop("a payload of " + size + " bytes, more than the database holds");
        int keep;
        if (size <= maxLocal) keep = (int) size;
        else {
            long k = minLocal + (size - minLocal) % (usable - 4);
            keep = k <= maxLocal ? (int) k : minLocal;
        }
        boolean spills = size > keep;
        if ((long) i + keep + (spills ? 4 : 0) > usable) return stop("a payload runs off its page");
        // The record's header: its size, then the serial types; only a header on the page is read here.
        long headerSize = varint(p, i, i + keep);
        if (varintLength == 0 || headerSize < 0 || headerSize > keep || headerSize < varintLength) return stop("a record header that is not on its page (read by SQLite)");
        int h = i + varintLength;
        int headerEnd = i + (int) headerSize;
        long body = headerSize;
        int n = 0;
        while (h < headerEnd && n < columnsWanted) {
            long t = varint(p, h, headerEnd);
            if (varintLength == 0) return stop("a serial type runs off its record header");
            h += varintLength;
            long len = length(t);
            if (len < 0) return stop("serial type " + t);
            type[n] = t;
            at[n] = body;
            body += len;
            n++;
        }
        if (body > size) return stop("a record's columns run past its payload");
        page = p;
        payloadAt = i;
        local = keep;
        payloadSize = size;
        firstOverflow = spills ? u32(p, i + keep) : 0;
        rowid = id;
        anyRow = true;
        columns = n;
        return true;
    }

    /** The bytes of a column of serial type {@code t}; -1 for the reserved types 10 and 11. */
    private static long length(long t) {
        if (t >= 12) return (t - 12) >> 1;
        return switch ((int) t) {
            case 0, 8, 9 -> 0;
            case 1 -> 1;
            case 2 -> 2;
            case 3 -> 3;
            case 4 -> 4;
            case 5 -> 6;
            case 6, 7 -> 8;
            default -> -1;
        };
    }

    public long rowid() {
        return rowid;
    }

    /** Columns the current record holds (up to the number asked for). */
    public int columns() {
        return columns;
    }

    /** The serial type of column {@code c} (0 NULL, 1-6 and 8-9 integers, 7 a float, even from 12 a blob, odd from 13 a text). */
    public long serialType(int c) {
        return type[c];
    }

    public boolean isNull(int c) {
        return type[c] == 0;
    }

    public boolean isInteger(int c) {
        long t = type[c];
        return t >= 1 && t <= 9 && t != 7;
    }

    /** A blob or a text: bytes. */
    public boolean isBytes(int c) {
        return type[c] >= 12;
    }

    /** The bytes of a blob or text column. */
    public int length(int c) {
        return (int) Math.min(Integer.MAX_VALUE, length(type[c]));
    }

    /** The integer in column {@code c} ({@link #isInteger}); 0 if the record spilled it and its page is damaged ({@link #stopped()}). */
    public long integer(int c) {
        long t = type[c];
        if (t == 8) return 0;
        if (t == 9) return 1;
        int n = (int) length(t);
        long from = at[c];
        if (from + n <= local) {
            int o = payloadAt + (int) from;
            long v = page[o]; // the first byte signed
            for (int k = 1; k < n; k++) v = (v << 8) | (page[o + k] & 0xff);
            return v;
        }
        byte[] b = new byte[n];
        if (!copy(from, b)) return 0;
        long v = b[0];
        for (int k = 1; k < n; k++) v = (v << 8) | Byte.toUnsignedLong(b[k]);
        return v;
    }

    /** The bytes of a blob or text column; null if its overflow pages are damaged ({@link #stopped()}). */
    public byte[] bytes(int c) {
        long len = length(type[c]);
        if (len > Integer.MAX_VALUE - 8) {
            stop("a column of " + len + " bytes");
            return null;
        }
        // Never allocated from an untrusted length: bytes past the page only once the overflow chain is seen to hold them.
        long end = at[c] + len;
        if (end > local && !chainHolds(end - local)) return null;
        byte[] b = new byte[(int) len];
        return copy(at[c], b) ? b : null;
    }

    /** Whether the overflow chain runs for at least {@code bytes} bytes (its pages read, nothing allocated); else stopped. */
    private boolean chainHolds(long bytes) {
        if (overflow == null) overflow = new byte[pages.pageSize()];
        long next = firstOverflow;
        int per = usable - 4;
        int hops = 0;
        for (long have = 0; have < bytes; have += per) {
            if (next < 2 || ++hops > pages.pageCount()) return stop("an overflow chain that breaks off (page " + next + ")");
            if (!pages.read(next, overflow)) return stop("overflow " + pages.missing(next));
            next = u32(overflow, 0);
        }
        return true;
    }

    /** Copies payload bytes from {@code from} into all of {@code dst}: from the page, then the overflow pages. */
    private boolean copy(long from, byte[] dst) {
        int done = 0;
        if (from < local) {
            int n = (int) Math.min(dst.length, local - from);
            System.arraycopy(page, payloadAt + (int) from, dst, 0, n);
            done = n;
        }
        if (done == dst.length) return true;
        long skip = Math.max(0, from - local); // bytes of the overflow chain before dst's
        long next = firstOverflow;
        int per = usable - 4;
        int hops = 0;
        while (done < dst.length) {
            if (next < 2 || ++hops > pages.pageCount()) return stop("an overflow chain that breaks off (page " + next + ")");
            if (overflow == null) overflow = new byte[pages.pageSize()];
            byte[] o = overflow;
            if (!pages.read(next, o)) return stop("overflow " + pages.missing(next));
            if (skip >= per) {
                skip -= per;
            } else {
                int n = (int) Math.min(dst.length - done, per - skip);
                System.arraycopy(o, 4 + (int) skip, dst, done, n);
                done += n;
                skip = 0;
            }
            next = u32(o, 0);
        }
        return true;
    }

}
