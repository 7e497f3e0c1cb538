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
    /** The page size: the meta's, or (no valid meta) the one at which the pages' headers name their own places. */
    private final int pageSize;
    /** Pages read as part of the tree (and their overflow pages), the metas and the freelist: what a scan past the tree skips. */
    private final BitSet reached = new BitSet();

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
        this.pageSize = best != null ? best.pageSize() : guessPageSize();
        reached.set(0, 2);
        if (best != null) checkFreelist(best);
    }

    /**
     * The meta's freelist page, as bbolt reads it at open (unless the meta says none was written, all ones): a page of
     * the file whose header names it and says freelist, its page IDs below the high-water mark. etcd panics at start
     * on one that is not ("invalid freelist page"): damage. The file holds every page up to the high-water mark.
     */
    private void checkFreelist(BoltMeta m) throws IOException {
        long pages = size / pageSize;
        if (m.highWater() > pages) {
            damage.add(new BoltDamage(-1, size, "the file ends at " + size + " bytes, " + pages + " pages, but its meta's high-water mark is page "
                    + m.highWater() + ": it was cut short (bbolt refuses it)"));
        }
        long id = m.freelist();
        if (id == -1L) return; // etcd's NoFreelistSync: the freelist is rebuilt from the tree at open
        ByteBuffer h = id >= 2 && id < pages ? read(id * pageSize, HEADER + 8) : null;
        if (h == null) {
            damage.add(new BoltDamage(id, id * pageSize, "freelist page " + id + " is past the end of the file (etcd: \"invalid freelist page\")"));
            return;
        }
        int flags = h.getShort(8) & 0xffff;
        long overflow = h.getInt(12) & 0xffffffffL;
        if (h.getLong(0) != id || (flags & FREELIST) == 0) {
            damage.add(new BoltDamage(id, id * pageSize, String.format("freelist page %d: its header says page %d, flags 0x%02x, not a freelist page "
                    + "(etcd panics at start: \"invalid freelist page\")", id, h.getLong(0), flags)));
            return;
        }
        reached.set((int) Math.min(id, Integer.MAX_VALUE - 1), (int) Math.min(id + overflow + 1, Integer.MAX_VALUE));
        long count = h.getShort(10) & 0xffff;
        long first = id * pageSize + HEADER;
        if (count == 0xffff) { // the count is the first u64
            count = h.getLong(HEADER);
            first += 8;
        }
        long end = (id + overflow + 1) * pageSize;
        if (count < 0 || first + count * 8 > Math.min(end, size)) {
            damage.add(new BoltDamage(id, id * pageSize, "freelist page " + id + ": " + count + " page IDs do not fit in its " + (overflow + 1) + " page(s)"));
            return;
        }
        ByteBuffer ids = count == 0 ? null : read(first, (int) Math.min(count * 8, Integer.MAX_VALUE - 8));
        for (int i = 0; ids != null && i < count; i++) {
            long free = ids.getLong(i * 8);
            if (free < 2 || free >= m.highWater()) {
                damage.add(new BoltDamage(id, id * pageSize, "freelist page " + id + ": free page ID " + free + " is outside the file's pages 2.."
                        + (m.highWater() - 1) + " (etcd: \"invalid freelist page\")"));
                return;
            }
        }
    }

    /**
     * With no valid meta, the page size bbolt wrote the file with: the one at which most of the first pages' headers
     * give their own page ID (bbolt writes each page's ID into it); 4096 when none does.
     */
    private int guessPageSize() throws IOException {
        int best = 4096;
        int bestHits = 0;
        for (int ps : PAGE_SIZES) {
            int hits = 0;
            for (long id = 2; id < 66 && (id + 1) * ps <= size; id++) {
                ByteBuffer h = read(id * ps, 8);
                if (h != null && h.getLong(0) == id) hits++;
            }
            if (hits > bestHits) {
                best = ps;
                bestHits = hits;
            }
        }
        return best;
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

    /**
     * The page {@code id} with its overflow pages (a view valid until the next page is read), or null (the damage
     * recorded) when the file cannot hold it: what a salvage reads again, in revision order, of the pages it found.
     */
    public ByteBuffer pageAt(long id) throws IOException {
        return page(id);
    }

    /** The page {@code id} with its overflow pages, or null (the damage recorded) when the file cannot hold it. */
    ByteBuffer page(long id) throws IOException {
        int ps = pageSize;
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
        if (id + overflow < Integer.MAX_VALUE) reached.set((int) id, (int) (id + overflow + 1));
        return p;
    }

    /** A leaf page met by {@link #scanPastTree}: its ID and whether its elements all parse. */
    public interface PageVisitor {
        /** Whether to visit this leaf page's elements (its keys are given to {@code first}: a page of another bucket is skipped whole). */
        boolean wanted(ByteBuffer page, int count);
    }

    /**
     * Every page the tree walks so far did not reach (nor the metas, nor the freelist) whose header names its own place
     * and says leaf, and whose elements all lie within it: its elements in order, given to {@code v} when {@code pages}
     * wants the page. What a salvage past the tree reads (free pages holding older copies of leaves, the leaves under a
     * damaged branch page, the pages of a commit whose meta is lost); nothing read here is damage.
     */
    public int scanPastTree(PageVisitor pages, Visitor v) throws IOException {
        int ps = pageSize;
        long count = size / ps;
        int found = 0;
        for (long id = 2; id < count; id++) {
            if (id < Integer.MAX_VALUE && reached.get((int) id)) continue;
            ByteBuffer h = view(id * ps, HEADER);
            if (h == null || h.getLong(0) != id || (h.getShort(8) & 0xffff) != LEAF) continue;
            long overflow = h.getInt(12) & 0xffffffffL;
            int n = h.getShort(10) & 0xffff;
            long length = (overflow + 1) * ps;
            if (id * ps + length > size || length > Integer.MAX_VALUE - 8) continue;
            ByteBuffer p = view(id * ps, (int) length);
            if (p == null || HEADER + (long) n * ELEMENT > length) continue;
            boolean fits = true;
            for (int i = 0; i < n && fits; i++) {
                int e = HEADER + i * ELEMENT;
                long end = e + (p.getInt(e + 4) & 0xffffffffL) + (p.getInt(e + 8) & 0xffffffffL) + (p.getInt(e + 12) & 0xffffffffL);
                fits = end <= length;
            }
            if (!fits || !pages.wanted(p, n)) continue;
            found++;
            for (int i = 0; i < n; i++) {
                int e = HEADER + i * ELEMENT;
                int k = e + p.getInt(e + 4);
                int kl = p.getInt(e + 8);
                v.entry(p, k, kl, k + kl, p.getInt(e + 12), (p.getInt(e) & BUCKET_LEAF) != 0);
            }
            id += overflow;
        }
        return found;
    }

    /** The flags of page {@code id} ({@link #BRANCH}, {@link #LEAF}, …) and its overflow count, or null past the end. */
    public int[] pageHeader(long id) throws IOException {
        ByteBuffer h = read(id * pageSize, HEADER);
        return h == null ? null : new int[] {h.getShort(8) & 0xffff, h.getInt(12)};
    }

    /** The bucket named {@code name} in the root bucket, or null (absent, or its path damaged). */
    public BucketRef bucket(String name) throws IOException {
        if (meta == null && root < 0) return null;
        byte[] want = name.getBytes(StandardCharsets.UTF_8);
        BucketRef[] found = {null};
        walk(new BucketRef(meta != null ? meta.rootPage() : root, null), (page, k, kl, v, vl, bucket) -> {
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
            elements(bucket.inline(), 0, -1, 0, v, null, null, null);
            return;
        }
        if (!walkPage(bucket.root(), 0, v, new BitSet(), null, null)) lost.add(new KeyRange(null, null));
    }

    /**
     * A range of a bucket's keys, from {@code from} (inclusive; null: the first) to {@code to} (exclusive; null: past the
     * last), whose page the walk could not read: the branch element that points to it, or the root, gives the range.
     */
    public record KeyRange(byte[] from, byte[] to) {
        public boolean contains(byte[] key) {
            return (from == null || java.util.Arrays.compareUnsigned(key, from) >= 0) && (to == null || java.util.Arrays.compareUnsigned(key, to) < 0);
        }
    }

    private final List<KeyRange> lost = new ArrayList<>();

    /** The key ranges of pages the walks so far could not read (their keys are lost to the tree): where a salvage looks past it. */
    public List<KeyRange> lostRanges() {
        return lost;
    }

    /** Walks page {@code id} (its keys between {@code lo} and {@code hi}); false when the page itself could not be read as a tree page. */
    private boolean walkPage(long id, int depth, Visitor v, BitSet seen, byte[] lo, byte[] hi) throws IOException {
        if (depth > MAX_DEPTH || (id >= 0 && id < Integer.MAX_VALUE && seen.get((int) id))) {
            damage.add(new BoltDamage(id, id * pageSize, "page " + id + " is reached again: the tree has a cycle"));
            return false;
        }
        if (id >= 0 && id < Integer.MAX_VALUE) seen.set((int) id);
        ByteBuffer p = page(id);
        if (p == null) return false;
        return elements(p, id, id * pageSize, depth, v, seen, lo, hi);
    }

    /** A page's name in a finding (made only when there is one). */
    private static String where(long id) {
        return id > 0 ? "page " + id : "an inline page";
    }

    private boolean elements(ByteBuffer p, long id, long at, int level, Visitor v, BitSet seen, byte[] lo, byte[] hi) throws IOException {
        if (p.limit() < HEADER) {
            damage.add(new BoltDamage(id, at, "an inline bucket of " + p.limit() + " bytes, shorter than a page header"));
            return false;
        }
        int flags = p.getShort(8) & 0xffff;
        int count = p.getShort(10) & 0xffff;
        int limit = p.limit();
        if (HEADER + (long) count * ELEMENT > limit) {
            damage.add(new BoltDamage(id, at, where(id) + ": " + count + " elements do not fit in its " + limit + " bytes"));
            return false;
        }
        // bbolt writes a tree page's flags as exactly branch (0x01) or leaf (0x02): any other bit is damage.
        if (flags != BRANCH && flags != LEAF && id > 0) {
            damage.add(new BoltDamage(id, at, where(id) + ": flags " + String.format("0x%02x", flags) + ", not a branch or leaf page"));
            return false;
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
                byte[] from = i == 0 ? lo : bytes(p, (int) (e + pos), (int) ksize);
                byte[] to = hi;
                int next = e + ELEMENT;
                if (i + 1 < count) {
                    long npos = p.getInt(next) & 0xffffffffL;
                    long nsize = p.getInt(next + 4) & 0xffffffffL;
                    if (next + npos + nsize <= limit) to = bytes(p, (int) (next + npos), (int) nsize);
                }
                if (!walkPage(p.getLong(e + 8), level + 1, v, seen, from, to)) lost.add(new KeyRange(from, to));
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
            return false;
        }
        return true;
    }

    private static byte[] bytes(ByteBuffer p, int at, int length) {
        byte[] b = new byte[length];
        p.get(at, b);
        return b;
    }

    public Path path() {
        return path;
    }

    public long size() {
        return size;
    }

    /** With no valid meta: the root bucket's page chosen by {@link #readFrom} (-1: none). */
    private long root = -1;

    /**
     * With no valid meta, reads the tree from {@code rootPage} (a leaf page of buckets found by {@link #rootCandidates}),
     * as a meta would name it.
     */
    public void readFrom(long rootPage) {
        if (meta != null) throw new IllegalStateException("the meta names the root");
        root = rootPage;
    }

    /** The root bucket's page the tree is read from: the meta's, or the one chosen with no valid meta; -1 for none. */
    public long rootPage() {
        return meta != null ? meta.rootPage() : root;
    }

    /**
     * The pages that may be the root bucket's: leaf pages whose header names their own place, all of whose elements are
     * buckets, one of them named {@code name}. With no valid meta, one of these is the tree's root (bbolt writes the
     * root bucket's page anew at each commit: the others are older).
     */
    public List<Long> rootCandidates(String name) throws IOException {
        byte[] want = name.getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        long count = size / pageSize;
        for (long id = 2; id < count; id++) {
            ByteBuffer h = view(id * pageSize, HEADER);
            if (h == null || h.getLong(0) != id || (h.getShort(8) & 0xffff) != LEAF || h.getInt(12) != 0) continue;
            int n = h.getShort(10) & 0xffff;
            ByteBuffer p = view(id * pageSize, pageSize);
            if (p == null || n == 0 || HEADER + n * ELEMENT > pageSize) continue;
            boolean buckets = true;
            boolean named = false;
            for (int i = 0; i < n && buckets; i++) {
                int e = HEADER + i * ELEMENT;
                int k = e + p.getInt(e + 4);
                int kl = p.getInt(e + 8);
                buckets = (p.getInt(e) & BUCKET_LEAF) != 0 && kl > 0 && k + (long) kl + (p.getInt(e + 12) & 0xffffffffL) <= pageSize;
                if (buckets && kl == want.length && p.slice(k, kl).equals(ByteBuffer.wrap(want))) named = true;
            }
            if (buckets && named) out.add(id);
        }
        return out;
    }

    /** What a trial read changes (damage, lost ranges, pages reached), to be put back by {@link #restore}. */
    public record Mark(int damage, int lost, BitSet reached) {
    }

    public Mark mark() {
        return new Mark(damage.size(), lost.size(), (BitSet) reached.clone());
    }

    /** Forgets what was read since {@code m} (a trial read of a candidate root). */
    public void restore(Mark m) {
        damage.subList(m.damage(), damage.size()).clear();
        lost.subList(m.lost(), lost.size()).clear();
        reached.clear();
        reached.or(m.reached());
    }

    /** The page size (the meta's; with no valid meta, the one the pages' own headers give). */
    public int pageSize() {
        return pageSize;
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
