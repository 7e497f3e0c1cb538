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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a bbolt file from its format (as {@link BoltFile} reads it), in one pass, never in place: the buckets of
 * the root bucket, each given its keys in ascending byte order and written out as they come: leaf pages packed
 * full in key order (an element too large for a page gets the overflow pages it needs, as bbolt's own), then
 * the branch pages above them, level by level; then the root bucket's leaf, an empty freelist page and the two
 * meta pages. Page 0 and 1 are the metas (txids {@code n} and {@code n+1}: the newer is page 1's), page 2 the
 * freelist; no page is free, so the file is exactly the high-water mark's pages. A bucket with no key is
 * inline, as bbolt creates one (its value is the bucket header and an empty leaf page). Native (little-endian)
 * byte order as bbolt on every platform etcd ships for. Nothing is forced to disk here: the caller owns the
 * file's durability (it writes to a temp file, fsyncs it, reads it back, then renames it in).
 */
public final class BoltWriter implements Closeable {
    public static final int PAGE_SIZE = 4096;
    private static final int HEADER = BoltFile.HEADER;
    private static final int ELEMENT = BoltFile.ELEMENT;
    /** Pages gathered before one write to the file. */
    private static final int BUFFER = 1 << 20;

    private final FileChannel ch;
    private final int pageSize;
    private final ByteBuffer out;
    /** The next page id to give (0, 1: metas; 2: freelist). */
    private long next = 3;
    private long written = 3L * PAGE_SIZE;
    private final Map<byte[], byte[]> buckets = new TreeMap<>(Arrays::compareUnsigned);
    private Bucket open;
    private boolean finished;

    private BoltWriter(FileChannel ch, int pageSize) {
        this.ch = ch;
        this.pageSize = pageSize;
        this.out = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Creates {@code path} (it must not exist) to write a bbolt file of 4 KiB pages into. */
    public static BoltWriter create(Path path) throws IOException {
        return new BoltWriter(FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ), PAGE_SIZE);
    }

    /**
     * Begins the root bucket's bucket {@code name} (closing the one before it): its keys go to {@link Bucket#put} in
     * ascending unsigned byte order, each once.
     */
    public Bucket bucket(String name) throws IOException {
        if (open != null) open.close();
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (buckets.containsKey(n)) throw new IllegalStateException("bucket " + name + " written twice");
        open = new Bucket(n);
        return open;
    }

    /** One bucket being written: its leaves as its keys come, its branches when it is closed. */
    public final class Bucket {
        private final byte[] name;
        /** The leaf being filled: keys and values, and the bytes they take on it. */
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        private long used = HEADER;
        private byte[] last;
        /** Each page written of the level below the next branch level: its first key and its id. */
        private final List<byte[]> firstKeys = new ArrayList<>();
        private final List<Long> pages = new ArrayList<>();
        private long count;

        private Bucket(byte[] name) {
            this.name = name;
        }

        /** Adds {@code key} with {@code value}; keys in ascending unsigned byte order. */
        public void put(byte[] key, byte[] value) throws IOException {
            if (open != this) throw new IllegalStateException("bucket " + new String(name, StandardCharsets.UTF_8) + " is closed");
            if (last != null && Arrays.compareUnsigned(last, key) >= 0) {
                throw new IllegalArgumentException("keys out of order in bucket " + new String(name, StandardCharsets.UTF_8));
            }
            long need = ELEMENT + (long) key.length + value.length;
            if (!keys.isEmpty() && used + need > pageSize) flushLeaf();
            keys.add(key);
            values.add(value);
            used += need;
            last = key;
            count++;
        }

        /** The keys put so far. */
        public long count() {
            return count;
        }

        private void flushLeaf() throws IOException {
            long id = page(BoltFile.LEAF, keys, values, true, 0);
            firstKeys.add(keys.get(0));
            pages.add(id);
            keys.clear();
            values.clear();
            used = HEADER;
        }

        private void close() throws IOException {
            if (!keys.isEmpty()) flushLeaf();
            open = null;
            ByteBuffer header = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            if (pages.isEmpty()) {
                // No key: inline, as bbolt makes a new bucket (header with root 0, then an empty leaf page's header).
                ByteBuffer v = ByteBuffer.allocate(16 + HEADER).order(ByteOrder.LITTLE_ENDIAN);
                v.putShort(16 + 8, (short) BoltFile.LEAF);
                buckets.put(name, v.array());
                return;
            }
            // Branch levels until one page holds the level: its root.
            List<byte[]> levelKeys = new ArrayList<>(firstKeys);
            List<Long> levelPages = new ArrayList<>(pages);
            while (levelPages.size() > 1) {
                List<byte[]> upKeys = new ArrayList<>();
                List<Long> upPages = new ArrayList<>();
                List<byte[]> k = new ArrayList<>();
                List<byte[]> ids = new ArrayList<>();
                long u = HEADER;
                for (int i = 0; i < levelPages.size(); i++) {
                    long need = ELEMENT + levelKeys.get(i).length;
                    if (!k.isEmpty() && u + need > pageSize) {
                        upKeys.add(k.get(0));
                        upPages.add(page(BoltFile.BRANCH, k, ids, false, 0));
                        k.clear();
                        ids.clear();
                        u = HEADER;
                    }
                    k.add(levelKeys.get(i));
                    ids.add(longBytes(levelPages.get(i)));
                    u += need;
                }
                upKeys.add(k.get(0));
                upPages.add(page(BoltFile.BRANCH, k, ids, false, 0));
                levelKeys = upKeys;
                levelPages = upPages;
            }
            header.putLong(0, levelPages.get(0));
            buckets.put(name, header.array());
        }
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, v).array();
    }

    /**
     * Writes one leaf page (values: each key's value; {@code leaf}) or branch page (values: each child's page id, 8
     * bytes) with the overflow pages it needs, and returns its id. {@code elementFlags}: each leaf element's (a bucket's 0x01).
     */
    private long page(int flags, List<byte[]> keys, List<byte[]> values, boolean leaf, int elementFlags) throws IOException {
        int n = keys.size();
        long size = HEADER + (long) n * ELEMENT;
        for (int i = 0; i < n; i++) size += keys.get(i).length + (leaf ? values.get(i).length : 0);
        long pagesNeeded = (size + pageSize - 1) / pageSize;
        if (pagesNeeded * pageSize > Integer.MAX_VALUE - pageSize) throw new IOException("a value too large for a bbolt page: " + size + " bytes");
        long id = next;
        next += pagesNeeded;
        ByteBuffer p = ByteBuffer.allocate((int) (pagesNeeded * pageSize)).order(ByteOrder.LITTLE_ENDIAN);
        p.putLong(0, id);
        p.putShort(8, (short) flags);
        p.putShort(10, (short) n);
        p.putInt(12, (int) (pagesNeeded - 1));
        int data = HEADER + n * ELEMENT;
        for (int i = 0; i < n; i++) {
            int e = HEADER + i * ELEMENT;
            byte[] k = keys.get(i);
            if (leaf) {
                byte[] v = values.get(i);
                p.putInt(e, elementFlags);
                p.putInt(e + 4, data - e);
                p.putInt(e + 8, k.length);
                p.putInt(e + 12, v.length);
                p.put(data, k);
                p.put(data + k.length, v);
                data += k.length + v.length;
            } else {
                p.putInt(e, data - e);
                p.putInt(e + 4, k.length);
                p.put(e + 8, values.get(i), 0, 8);
                p.put(data, k);
                data += k.length;
            }
        }
        emit(p);
        return id;
    }

    /** Appends whole pages to the file (through the buffer). */
    private void emit(ByteBuffer pages) throws IOException {
        pages.clear();
        if (pages.remaining() > out.remaining()) flush();
        if (pages.remaining() > out.capacity()) {
            writeFully(pages, written);
            written += pages.capacity();
            return;
        }
        out.put(pages);
    }

    private void flush() throws IOException {
        out.flip();
        int n = out.remaining();
        writeFully(out, written);
        written += n;
        out.clear();
    }

    private void writeFully(ByteBuffer b, long at) throws IOException {
        long pos = at;
        while (b.hasRemaining()) pos += ch.write(b, pos);
    }

    /**
     * Closes the last bucket and writes the root bucket's leaf, the freelist page and both metas ({@code txid} and
     * {@code txid + 1}); returns the file's size. The file is complete, not yet forced to disk.
     */
    public long finish(long txid) throws IOException {
        if (open != null) open.close();
        List<byte[]> names = new ArrayList<>(buckets.keySet());
        List<byte[]> headers = new ArrayList<>(buckets.values());
        // The root bucket's leaf: each element a bucket (flag 0x01), its value the bucket's header (and inline page).
        long root = page(BoltFile.LEAF, names, headers, true, BoltFile.BUCKET_LEAF);
        flush();
        long highWater = next;
        // Page 2: the freelist, empty (no page is free).
        ByteBuffer free = ByteBuffer.allocate(pageSize).order(ByteOrder.LITTLE_ENDIAN);
        free.putLong(0, 2);
        free.putShort(8, (short) BoltFile.FREELIST);
        writeFully(free, 2L * pageSize);
        for (int slot = 0; slot < 2; slot++) {
            ByteBuffer m = ByteBuffer.allocate(pageSize).order(ByteOrder.LITTLE_ENDIAN);
            m.putLong(0, slot);
            m.putShort(8, (short) BoltFile.META);
            int a = BoltMeta.AT;
            m.putInt(a, BoltMeta.MAGIC);
            m.putInt(a + 4, BoltMeta.VERSION);
            m.putInt(a + 8, pageSize);
            m.putInt(a + 12, 0);
            m.putLong(a + 16, root);
            m.putLong(a + 24, 0); // the root bucket's sequence
            m.putLong(a + 32, 2);
            m.putLong(a + 40, highWater);
            m.putLong(a + 48, txid + slot);
            m.putLong(a + BoltMeta.CHECKED, Fnv64a.of(m, a, BoltMeta.CHECKED));
            writeFully(m, (long) slot * pageSize);
        }
        long size = highWater * pageSize;
        if (ch.size() < size) writeFully(ByteBuffer.allocate(1), size - 1); // the last page's zeros, when it ended short
        finished = true;
        return size;
    }


    @Override
    public void close() throws IOException {
        ch.close();
    }

    /** True once {@link #finish} wrote the metas. */
    public boolean finished() {
        return finished;
    }
}
