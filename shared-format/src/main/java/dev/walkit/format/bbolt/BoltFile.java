package dev.walkit.format.bbolt;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A bbolt file read from its format, read-only: the two meta pages (the valid one with the higher txid is
 * the database), and buckets walked as B+ trees of branch and leaf pages, in key order, with overflow pages
 * and nested (also inline) buckets. Page layout: a 16-byte header (id u64, flags u16, count u16, overflow
 * u32), then {@code count} 16-byte elements; a branch element is pos u32, ksize u32, pgid u64, a leaf element
 * flags u32, pos u32, ksize u32, vsize u32, each key {@code pos} bytes after its element and a leaf's value
 * right after its key. A bucket's value is its root page u64 and sequence u64, and when the root is 0 an
 * inline page follows. Every length and page number read from the file is checked against the file before
 * it is used: damage goes to {@link #damage()}, and the walk goes on past it.
 */
public final class BoltFile implements Closeable {
    public static final int BRANCH = 0x01;
    public static final int LEAF = 0x02;
    public static final int META = 0x04;
    public static final int FREELIST = 0x10;
    static final int HEADER = 16;
    static final int ELEMENT = 16;
    static final int BUCKET_LEAF = 0x01;
    /** Deeper than any B+ tree of a file this size: a cycle in damaged pages stops here. */
    private static final int MAX_DEPTH = 64;

    /** A leaf element in key order: {@code page} holds its key and value at the given places. */
    public interface Visitor {
        void entry(ByteBuffer page, int keyAt, int keyLength, int valueAt, int valueLength, boolean bucket);
    }

    /** Where a bucket's tree starts: a root page, or (root 0) an inline page. */
    public record BucketRef(long root, ByteBuffer inline) {
    }

    /**
     * Pages are read through windows of this size, a few kept (most of a B+ tree's leaves lie in runs), 512 KiB in
     * all: copies out of the page cache into buffers that stay in the core's cache ran several times as fast as into
     * 1 MiB ones (4 MiB of those: 2.5 s to verify a 1.3 GB db; 1.75 s with these, scripts/bench-stores).
     */
    public static final int WINDOW = 1 << 16;
    private static final int WINDOWS = 8;
    /** A run longer than this is mapped, not read ({@link #mapped}). */
    static final int MAPPED_RUN = 1 << 16;

    private final Path path;
    private final FileChannel ch;
    private final long size;
    /** The windows (least recently used first out) and the file offset each starts at (-1: empty). */
    private final ByteBuffer[] windows = new ByteBuffer[WINDOWS];
    private final long[] windowAt = {-1, -1, -1, -1, -1, -1, -1, -1};
    private final long[] windowUsed = new long[WINDOWS];
    private long uses;
    private final List<BoltMeta> metas = new ArrayList<>();
    private final BoltMeta meta;
    private final List<BoltDamage> damage = new ArrayList<>();

    private BoltFile(Path path, FileChannel ch) throws IOException {
        this.path = path;
        this.ch = ch;
        this.size = ch.size();

        BoltMeta m0 = readMeta(0, 0);
        metas.add(m0);
        // Page 1 is one page size in: meta 0's when it is sane, else the usual sizes in turn.
        int[] sizes = m0.magic() == BoltMeta.MAGIC && saneSize(m0.pageSize()) ? new int[] {m0.pageSize()} : PAGE_SIZES;
        BoltMeta m1 = null;
        for (int ps : sizes) {
            m1 = readMeta(1, ps);
            if (m1.valid()) break;
        }
        metas.add(m1);
        BoltMeta best = null;
        for (BoltMeta m : metas) {
            if (!m.valid()) {
                damage.add(new BoltDamage(m.slot(), m.offset(), "meta page " + m.slot() + ": " + m.problem()));
            } else if (best == null || m.txid() > best.txid()) {
                best = m;
            }
        }
        this.meta = best;
    }

    private static boolean saneSize(int ps) {
        return ps >= 512 && ps <= (1 << 16) && Integer.bitCount(ps) == 1;
    }

    /** The page sizes bbolt allows, most usual first: where meta page 1 is looked for when meta page 0 is not sane. */
    static final int[] PAGE_SIZES = {4096, 8192, 16384, 65536, 2048, 1024};

    /**
     * True when {@code path} begins as a bbolt file: the meta magic at offset 16 of page 0's meta, or (meta page 0
     * damaged: bbolt itself then opens the file through meta page 1) of page 1's, at any page size bbolt allows.
     */
    public static boolean sniff(Path path) throws IOException {
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
            if (magicAt(c, 16)) return true;
            for (int ps : PAGE_SIZES) {
                if (magicAt(c, ps + 16L)) return true;
            }
            return false;
        }
    }

    private static boolean magicAt(FileChannel c, long at) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining() && c.read(b, at + b.position()) > 0) {
            // read on
        }
        return !b.hasRemaining() && b.getInt(0) == BoltMeta.MAGIC;
    }

    public static BoltFile open(Path path) throws IOException {
        FileChannel c = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new BoltFile(path, c);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private BoltMeta readMeta(int slot, int pageSize) throws IOException {
        long at = (long) slot * pageSize;
        ByteBuffer b = read(at, HEADER + BoltMeta.LENGTH);
        if (b == null) {
            return new BoltMeta(slot, at, 0, 0, 0, 0, 0, 0, 0, 0, 0, "the file ends at " + size + ", before this meta page");
        }
        int m = BoltMeta.AT;
        int magic = b.getInt(m);
        int version = b.getInt(m + 4);
        int ps = b.getInt(m + 8);
        long root = b.getLong(m + 16);
        long freelist = b.getLong(m + 32);
        long highWater = b.getLong(m + 40);
        long txid = b.getLong(m + 48);
        long sum = b.getLong(m + BoltMeta.CHECKED);
        long computed = Fnv64a.of(b, m, BoltMeta.CHECKED);
        int flags = b.getShort(8) & 0xffff;
        String problem = null;
        if (magic != BoltMeta.MAGIC) problem = String.format("magic %08x, not bbolt's %08x", magic, BoltMeta.MAGIC);
        else if (version != BoltMeta.VERSION) problem = "version " + version + ", not " + BoltMeta.VERSION;
        else if (sum != computed) problem = String.format("checksum %016x, the bytes give %016x", sum, computed);
        else if ((flags & META) == 0) problem = "page flags " + flags + " lack META";
        else if (!saneSize(ps)) problem = "page size " + ps;
        else if (slot == 1 && ps != pageSize) problem = "page size " + ps + " but found " + pageSize + " bytes in";
        return new BoltMeta(slot, at, magic, version, ps, root, freelist, highWater, txid, sum, computed, problem);
    }

    /**
     * {@code length} bytes at {@code offset} (within the file): a view of a window, no copy, valid until the next
     * page is read (a window may then be refilled); a run longer than a window is read into a buffer of its own.
     * A page that must outlive that (a branch page, whose children are read while it is walked; an inline
     * bucket) is copied by the caller ({@link #own}).
     */
    private ByteBuffer view(long offset, int length) throws IOException {
        // Windows start at multiples of their size: each part of the file is read once as the walk goes through it
        // (windows that started at the page asked for overlapped: 2.0 GB read of a 1.3 GB db). A run that would
        // cross a window's end, or a long one, is mapped.
        long start = offset & -WINDOW;
        if (length > MAPPED_RUN || offset + length > start + WINDOW) return mapped(offset, length);
        int lru = 0;
        for (int i = 0; i < WINDOWS; i++) {
            if (windowAt[i] == start) {
                if (offset + length > start + windows[i].limit()) return null; // past the end of the file
                windowUsed[i] = ++uses;
                return windows[i].slice((int) (offset - start), length).order(ByteOrder.LITTLE_ENDIAN);
            }
            if (windowUsed[i] < windowUsed[lru]) lru = i;
        }
        if (windows[lru] == null) windows[lru] = ByteBuffer.allocateDirect(WINDOW);
        ByteBuffer w = windows[lru].clear();
        w.limit((int) Math.min(WINDOW, size - start));
        while (w.hasRemaining()) {
            if (ch.read(w, start + w.position()) < 0) break;
        }
        w.flip();
        windowAt[lru] = start;
        windowUsed[lru] = ++uses;
        if (offset + length > start + w.limit()) return null;
        return w.slice((int) (offset - start), length).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A long run (a large value's overflow pages), mapped, not read into a window: what is read of it is its
     * header, its elements and the fields around a value, which a reader skips by its length (etcd's lease follows
     * the value), so only the pages touched are read from the page cache, not the whole run copied (a generated
     * 1.3 GB db has a gigabyte of such runs). The mapping goes with the buffer; or null past the end of the file.
     */
    private ByteBuffer mapped(long offset, int length) throws IOException {
        if (offset < 0 || offset + length > size) return null;
        return ch.map(FileChannel.MapMode.READ_ONLY, offset, length).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A copy of {@code b} that no later read changes. */
    private static ByteBuffer own(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.limit()).order(ByteOrder.LITTLE_ENDIAN);
        c.put(0, b, 0, b.limit());
        return c;
    }

    /** {@code length} bytes at {@code offset}, or null past the end of the file. */
    private ByteBuffer read(long offset, int length) throws IOException {
        if (offset < 0 || offset + length > size) return null;
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b, offset + b.position()) < 0) return null;
        }
        return b.clear();
    }

    /** The page {@code id} with its overflow pages, or null (the damage recorded) when the file cannot hold it. */
    ByteBuffer page(long id) throws IOException {
        int ps = meta.pageSize();
        long at = id * ps;
        if (id < 2 || id > size / ps || at + ps > size) {
            damage.add(new BoltDamage(id, at, "page " + id + " is past the end of the file (" + size + " bytes, " + size / ps + " pages)"));
            return null;
        }
        // The header through the windows, as the page: a read of its own for each page's 16 bytes was 190,000 reads of a 1.3 GB db.
        ByteBuffer head = view(at, HEADER);
        long overflow = head == null ? 0 : head.getInt(12) & 0xffffffffL;
        long length = (overflow + 1) * ps;
        if (at + length > size || length > Integer.MAX_VALUE - 8) {
            damage.add(new BoltDamage(id, at, "page " + id + " claims " + overflow + " overflow page(s), past the end of the file"));
            return null;
        }
        ByteBuffer p = head == null ? null : view(at, (int) length);
        if (p == null) { // shorter than it was when opened
            damage.add(new BoltDamage(id, at, "page " + id + " could not be read: the file ends before it"));
            return null;
        }
        long claimed = p.getLong(0);
        if (claimed != id) {
            damage.add(new BoltDamage(id, at, "page " + id + "'s header says page " + claimed));
            return null;
        }
        return p;
    }

    /** The flags of page {@code id} ({@link #BRANCH}, {@link #LEAF}, …) and its overflow count, or null past the end. */
    public int[] pageHeader(long id) throws IOException {
        ByteBuffer h = meta == null ? null : read(id * meta.pageSize(), HEADER);
        return h == null ? null : new int[] {h.getShort(8) & 0xffff, h.getInt(12)};
    }

    /** The bucket named {@code name} in the root bucket, or null (absent, or its path damaged). */
    public BucketRef bucket(String name) throws IOException {
        if (meta == null) return null;
        byte[] want = name.getBytes(StandardCharsets.UTF_8);
        BucketRef[] found = {null};
        walk(new BucketRef(meta.rootPage(), null), (page, k, kl, v, vl, bucket) -> {
            if (!bucket || kl != want.length || vl < 16 || found[0] != null) return;
            for (int i = 0; i < kl; i++) if (page.get(k + i) != want[i]) return;
            long root = page.getLong(v);
            ByteBuffer inline = null;
            if (root == 0) inline = own(page.slice(v + 16, vl - 16)); // used after other pages are read
            found[0] = new BucketRef(root, inline);
        });
        return found[0];
    }

    /** Every leaf element of the bucket's tree in key order. */
    public void walk(BucketRef bucket, Visitor v) throws IOException {
        if (bucket.inline() != null) {
            elements(bucket.inline(), 0, -1, 0, v, null);
            return;
        }
        walkPage(bucket.root(), 0, v, new BitSet());
    }

    private void walkPage(long id, int depth, Visitor v, BitSet seen) throws IOException {
        if (depth > MAX_DEPTH || (id >= 0 && id < Integer.MAX_VALUE && seen.get((int) id))) {
            damage.add(new BoltDamage(id, id * meta.pageSize(), "page " + id + " is reached again: the tree has a cycle"));
            return;
        }
        if (id >= 0 && id < Integer.MAX_VALUE) seen.set((int) id);
        ByteBuffer p = page(id);
        if (p == null) return;
        elements(p, id, id * meta.pageSize(), depth, v, seen);
    }

    /** A page's name in a finding (made only when there is one). */
    private static String where(long id) {
        return id > 0 ? "page " + id : "an inline page";
    }

    private void elements(ByteBuffer p, long id, long at, int level, Visitor v, BitSet seen) throws IOException {
        if (p.limit() < HEADER) {
            damage.add(new BoltDamage(id, at, "an inline bucket of " + p.limit() + " bytes, shorter than a page header"));
            return;
        }
        int flags = p.getShort(8) & 0xffff;
        int count = p.getShort(10) & 0xffff;
        int limit = p.limit();
        if (HEADER + (long) count * ELEMENT > limit) {
            damage.add(new BoltDamage(id, at, where(id) + ": " + count + " elements do not fit in its " + limit + " bytes"));
            return;
        }
        // bbolt writes a tree page's flags as exactly branch (0x01) or leaf (0x02): any other bit is damage.
        if (flags != BRANCH && flags != LEAF && id > 0) {
            damage.add(new BoltDamage(id, at, where(id) + ": flags " + String.format("0x%02x", flags) + ", not a branch or leaf page"));
            return;
        }
        if ((flags & BRANCH) != 0 && seen != null) {
            p = own(p); // its children are read while it is walked
            for (int i = 0; i < count; i++) {
                int e = HEADER + i * ELEMENT;
                long pos = p.getInt(e) & 0xffffffffL;
                long ksize = p.getInt(e + 4) & 0xffffffffL;
                if (e + pos + ksize > limit) {
                    damage.add(new BoltDamage(id, at, where(id) + ": branch element " + i + "'s key runs past the page"));
                    continue;
                }
                walkPage(p.getLong(e + 8), level + 1, v, seen);
            }
        } else if ((flags & LEAF) != 0) {
            for (int i = 0; i < count; i++) {
                int e = HEADER + i * ELEMENT;
                int eflags = p.getInt(e);
                long pos = p.getInt(e + 4) & 0xffffffffL;
                long ksize = p.getInt(e + 8) & 0xffffffffL;
                long vsize = p.getInt(e + 12) & 0xffffffffL;
                if (e + pos + ksize + vsize > limit) {
                    damage.add(new BoltDamage(id, at, where(id) + ": leaf element " + i + " (key " + ksize + " bytes, value " + vsize + " bytes) runs past the page"));
                    continue;
                }
                int k = (int) (e + pos);
                v.entry(p, k, (int) ksize, (int) (k + ksize), (int) vsize, (eflags & BUCKET_LEAF) != 0);
            }
        } else {
            damage.add(new BoltDamage(id, at, where(id) + ": flags " + String.format("0x%02x", flags) + ", not a branch or leaf page"));
        }
    }

    public Path path() {
        return path;
    }

    public long size() {
        return size;
    }

    /** The meta in force (the valid one with the higher txid), or null when neither is valid. */
    public BoltMeta meta() {
        return meta;
    }

    public List<BoltMeta> metas() {
        return metas;
    }

    public List<BoltDamage> damage() {
        return damage;
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
