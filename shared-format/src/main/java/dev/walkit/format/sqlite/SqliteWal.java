package dev.walkit.format.sqlite;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * The committed frames of an SQLite write-ahead log ({@code -wal}), found as SQLite finds them when it recovers the
 * log with no other connection open (sqlite.org/fileformat2.html §4): a 32-byte header (magic 0x377f0682 or
 * 0x377f0683, the byte order of the checksums' words; version 3007000; page size; checkpoint sequence; salt-1,
 * salt-2; a checksum of the first 24 bytes), then frames of a 24-byte header (page number; the database's size in
 * pages after a commit, 0 for the frames before it; the header's salts; a checksum over the frame header's first 8
 * bytes and the page, chained from the one before) and a page. Frames are valid up to the first whose salts or
 * chained checksum do not match (a frame of an earlier cycle, or torn); of those, the ones up to the last commit
 * frame count, and a page's latest frame is the page.
 */
final class SqliteWal {
    static final int HEADER = 32;
    static final int FRAME_HEADER = 24;
    private static final int MAGIC_LE = 0x377f0682;
    private static final int MAGIC_BE = 0x377f0683;
    private static final int VERSION = 3007000;

    /** No frames: the database file alone. */
    static final SqliteWal EMPTY = new SqliteWal(Map.of(), 0, 0);

    /** Each page's latest committed frame: the file offset of its page image. */
    private final Map<Integer, Long> pages;
    /** The database's size in pages at the last commit (0: no commit). */
    private final int databasePages;
    private final int frames;

    private SqliteWal(Map<Integer, Long> pages, int databasePages, int frames) {
        this.pages = pages;
        this.databasePages = databasePages;
        this.frames = frames;
    }

    /** The committed frames of the log in {@code ch} for a database of {@code pageSize}-byte pages. */
    static SqliteWal read(FileChannel ch, int pageSize) throws IOException {
        Chain c = chain(ch, pageSize);
        return c.headerProblem() != null || c.pages().isEmpty() ? EMPTY : new SqliteWal(c.pages(), c.databasePages(), c.valid());
    }

    /**
     * The chain of valid frames of a log as SQLite recovers it (what {@link #read} keeps and {@link SqliteWalCheck}
     * judges): its header's problem (null: a valid header, of {@code pageSize} when that is above 0), the header's
     * page size and salts, the frames valid and committed, where the chain ends, why (null: at the file's end), and
     * each page's latest committed frame.
     */
    record Chain(String headerProblem, int pageSize, int salt1, int salt2, int valid, int committed, long end, String broke,
                 Map<Integer, Long> pages, int databasePages) {
        static Chain bad(String why, int pageSize) {
            return new Chain(why, pageSize, 0, 0, 0, 0, HEADER, null, Map.of(), 0);
        }
    }

    static Chain chain(FileChannel ch, int pageSize) throws IOException {
        long size = ch.size();
        if (size < HEADER) return Chain.bad(size + " bytes, less than its 32-byte header", 0);
        ByteBuffer h = ByteBuffer.allocate(HEADER);
        readFully(ch, h, 0);
        int magic = h.getInt(0);
        ByteOrder words = magic == MAGIC_BE ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        int ps = h.getInt(8);
        int[] sum = checksum(h, 0, 24, words, 0, 0);
        if ((magic != MAGIC_LE && magic != MAGIC_BE) || h.getInt(4) != VERSION || ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0
                || sum[0] != h.getInt(24) || sum[1] != h.getInt(28)) {
            return Chain.bad("its header is damaged (magic, version, page size or checksum)", ps);
        }
        if (pageSize > 0 && ps != pageSize) return Chain.bad("its page size is " + ps + ", the database's " + pageSize, ps);
        int salt1 = h.getInt(16);
        int salt2 = h.getInt(20);
        Map<Integer, Long> pending = new HashMap<>();
        Map<Integer, Long> committed = new HashMap<>();
        int databasePages = 0;
        int valid = 0;
        int committedFrames = 0;
        String broke = null;
        long frame = (long) FRAME_HEADER + ps;
        ByteBuffer f = ByteBuffer.allocate((int) frame);
        long at = HEADER;
        for (; at + frame <= size; at += frame) {
            f.clear();
            readFully(ch, f, at);
            int page = f.getInt(0);
            int commit = f.getInt(4);
            boolean salts = f.getInt(8) == salt1 && f.getInt(12) == salt2;
            int[] s = checksum(f, 0, 8, words, sum[0], sum[1]);
            s = checksum(f, FRAME_HEADER, ps, words, s[0], s[1]);
            if (page <= 0 || !salts || s[0] != f.getInt(16) || s[1] != f.getInt(20)) {
                broke = "frame " + (valid + 1) + " (offset " + at + ") " + (page <= 0 ? "has page number " + page : !salts ? "has other salts" : "fails its checksum");
                break;
            }
            sum = s;
            valid++;
            pending.put(page, at + FRAME_HEADER);
            if (commit != 0) {
                committed.putAll(pending);
                pending.clear();
                databasePages = commit;
                committedFrames = valid;
            }
        }
        return new Chain(null, ps, salt1, salt2, valid, committedFrames, at, broke, committed, databasePages);
    }

    /** SQLite's WAL checksum over {@code length} bytes (a multiple of 8) of {@code b} from {@code at}, from s0, s1. */
    static int[] checksum(ByteBuffer b, int at, int length, ByteOrder words, int s0, int s1) {
        ByteBuffer w = b.duplicate().order(words);
        for (int i = at; i < at + length; i += 8) {
            s0 += w.getInt(i) + s1;
            s1 += w.getInt(i + 4) + s0;
        }
        return new int[] {s0, s1};
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) throw new IOException("the SQLite -wal file ended while it was read");
        }
    }

    /** The offset in the log of {@code page}'s committed image, or -1: the database file's. */
    long offsetOf(int page) {
        Long at = pages.get(page);
        return at == null ? -1 : at;
    }

    /** The database's size in pages at the last commit; 0 when nothing was committed here. */
    int databasePages() {
        return databasePages;
    }

    boolean isEmpty() {
        return pages.isEmpty();
    }

    /** Valid frames, committed or not (for the record). */
    int frames() {
        return frames;
    }
}
