package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Keys to their replayed create_revision, version and liveness, in primitive arrays: what
 * {@link CleanReplay} keeps. Looked up straight from a record's bytes in the read buffer, so a known key
 * costs no allocation, and the garbage collector has a few large arrays to skip instead of an object per
 * key to copy (for the millions of keys of a large log, copying {@link KeyState}s was a third of a
 * replay's time). The {@link KeyIndex} of {@link Replayer} keeps objects because its users attach
 * things to keys.
 *
 * <p>Two structures, both laid out for a table of millions of keys read at random:
 * <ul>
 * <li>the <b>entries</b>: each key's facts followed by its bytes, one after the other in {@code long[]}
 *     pages of up to 4 MiB (a page is never copied, an entry never moves). An entry is named by its
 *     <i>ref</i>, its page and its offset there; {@link #find} returns it and the other methods take it.
 *     A key known costs one cache miss here: its facts and bytes are side by side. The pages are
 *     {@code long[]}, the key bytes packed eight to a long (little-endian, the last zero-padded), not a
 *     {@code byte[]} read through a {@link java.lang.invoke.VarHandle}: until the compiler's last tier
 *     had compiled them, VarHandle reads cost several hundred nanoseconds each, and the first 16 MiB of a
 *     log took 140 ms instead of 8.</li>
 * <li>the <b>index</b>: one long a slot, the key's 32-bit hash and its entry's ref, in open addressing
 *     with linear probing. 8 bytes a slot keep it small enough to stay mostly in the processor's cache
 *     (1 M slots, 8 MiB, for up to 768 K keys), and a probe that meets another key's hash never reads
 *     that key's entry. Growing it moves 8 bytes a key, not the entries.</li>
 * </ul>
 * The layout this replaced (4 longs a slot in the index itself, load factor 0.5, keys in a separate
 * arena copied on growth) read two random cache lines for every record and was 64 MiB for the keys of
 * a 2 GiB log.
 *
 * <p>An entry: [hash (low 32 bits) | key length (bits 32-62) | LIVE (bit 63)], [create_revision],
 * [version]; for a part that tracks first records ({@code tracksFirst}, a part of a log read from its
 * middle, whose first record of each key is checked against the state the earlier part left):
 * [revision | FIRST_DELETE], [create_revision], [version]; with {@code keepsValues}: [mod_revision],
 * [lease], [value offset in the file], [value length]; then the key's bytes, eight to a long.
 */
final class KeyTable {
    private static final long LIVE = 1L << 63;
    private static final long FIRST_DELETE = 1L << 63;
    /** Offsets in a page are in longs: 19 bits for pages of up to 4 MiB (a larger entry has a page of its own, at offset 0). */
    private static final int OFFSET_BITS = 19;
    private static final int MAX_PAGE = 1 << OFFSET_BITS;
    private static final int FIRST_PAGE = 8 << 10;
    /** Refs are non-negative ints: 12 bits of page number. */
    private static final int MAX_PAGES = 1 << (31 - OFFSET_BITS);
    private static final int INITIAL_SLOTS = 1 << 12;

    private final boolean tracksFirst;
    private final boolean keepsValues;
    /** Longs of an entry before its key. */
    private final int header;
    private final int firstAt;
    private final int valuesAt;

    private long[] index = new long[INITIAL_SLOTS];
    private long[][] pages = new long[16][];
    /** Longs used in each page. */
    private int[] pageUsed = new int[16];
    private int pageCount;
    private long[] page;
    private int used;
    private int size;
    private int liveCount;
    private boolean inserted;

    KeyTable(boolean tracksFirst, boolean keepsValues) {
        this.tracksFirst = tracksFirst;
        this.keepsValues = keepsValues;
        this.firstAt = 3;
        this.valuesAt = tracksFirst ? 6 : 3;
        this.header = valuesAt + (keepsValues ? 4 : 0);
        newPage(FIRST_PAGE);
    }

    /** 32-bit hash of the key at {@code buf[index, index + length)} (a little-endian buffer), 8 bytes at a time; never 0. */
    static int hash(ByteBuffer buf, int index, int length) {
        long h = SEED ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) h = (h ^ buf.getLong(index + i)) * WORD;
        return finish(h, tail(buf, index + i, length - i));
    }

    // The one key hash, over a buffer or an array: the seed, the multiplier of each full 8-byte word, then the tail's.
    private static final long SEED = 0x9E3779B97F4A7C15L;
    private static final long WORD = 0xBF58476D1CE4E5B9L;

    /** The hash after the full words, {@code h}, with the last 0 to 7 bytes, {@code tail}: 32 bits, never 0. */
    private static int finish(long h, long tail) {
        h = (h ^ tail) * 0x94D049BB133111EBL;
        int r = (int) (h ^ (h >>> 32));
        return r == 0 ? 1 : r;
    }

    /**
     * {@link #hash(ByteBuffer, int, int)} of the key {@code k} (what {@link KeyIndex} looks up), read from the array
     * itself: a buffer wrapped around it for each lookup was a sixth of walrecover's allocation on a 2 GiB log
     * (the call is kept out of line by the launcher, so the wrapper escaped).
     */
    static int hash(byte[] k) {
        int length = k.length;
        long h = SEED ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) h = (h ^ longAt(k, i, 8)) * WORD;
        return finish(h, longAt(k, i, length - i));
    }

    /** The {@code n} (0 to 8) bytes at {@code k[at]} as a little-endian long, zero above them. */
    private static long longAt(byte[] k, int at, int n) {
        long t = 0;
        for (int j = 0; j < n; j++) t |= (k[at + j] & 0xFFL) << (j << 3);
        return t;
    }

    /** The {@code n} (0 to 7) bytes at {@code buf[at]} as a little-endian long, zero above them. */
    private static long tail(ByteBuffer buf, int at, int n) {
        long t = 0;
        for (int j = 0; j < n; j++) t |= (buf.get(at + j) & 0xFFL) << (j << 3);
        return t;
    }

    private static int words(int length) {
        return (length + 7) >>> 3;
    }

    /**
     * The ref of the key at {@code buf[index, index + length)}, inserted (not live) when absent;
     * {@link #inserted()} tells which. The buffer must be little-endian.
     */
    int find(ByteBuffer buf, int index, int length) {
        int h = hash(buf, index, length);
        long[] slots = this.index;
        int mask = slots.length - 1;
        long want = (h & 0xFFFFFFFFL) | ((long) length << 32);
        int i = h & mask;
        for (long x; (x = slots[i]) != 0; i = (i + 1) & mask) {
            int ref = (int) (x >>> 32);
            // One branch for "not this key", whether the hash differs (common: a probe past another key) or the
            // hash is the same and the key is not (rare). A branch of its own for the rare case was never taken
            // while the method was profiled, so the compiled method was thrown away the first time it was:
            // find was compiled three times in each run on a 2 GiB log, 50-70 ms of the compiler each.
            long differs = (int) x == h ? difference(ref, want, buf, index, length) : 1;
            if (differs == 0) {
                inserted = false;
                return ref;
            }
        }
        int ref = append(want, buf, index, length);
        slots[i] = ((long) ref << 32) | (h & 0xFFFFFFFFL);
        inserted = true;
        if (++size > slots.length - (slots.length >>> 2)) grow();
        return ref;
    }

    /** A new entry: its first word, zeroed facts and the key's bytes. */
    private int append(long word0, ByteBuffer buf, int index, int length) {
        int longs = header + words(length);
        if (used + longs > page.length) {
            if (pageCount == MAX_PAGES) throw new IllegalStateException("more than " + MAX_PAGES + " pages of distinct keys");
            newPage(longs > MAX_PAGE ? longs : Math.min(MAX_PAGE, Math.max(longs, 2 * page.length)));
        }
        int at = used;
        long[] p = page;
        p[at] = word0;
        int k = at + header;
        int i = 0;
        for (; i + 8 <= length; i += 8) p[k++] = buf.getLong(index + i);
        if (i < length) p[k] = tail(buf, index + i, length - i);
        used += longs;
        pageUsed[pageCount - 1] = used;
        return ((pageCount - 1) << OFFSET_BITS) | at;
    }

    private void newPage(int longs) {
        if (pageCount == pages.length) {
            pages = Arrays.copyOf(pages, 2 * pageCount);
            pageUsed = Arrays.copyOf(pageUsed, 2 * pageCount);
        }
        page = new long[longs];
        pages[pageCount++] = page;
        used = 0;
    }

    /** Whether the last {@link #find} inserted the key. */
    boolean inserted() {
        return inserted;
    }

    /**
     * 0 when the entry {@code ref} holds the key at {@code buf[index, index + length)} whose first entry word
     * would be {@code want}, else not 0; without a branch on the answer, for {@link #find}'s sake (javac
     * compiles a boolean result to one). The bytes compared are as many as the shorter key has.
     */
    private long difference(int ref, long want, ByteBuffer buf, int index, int length) {
        long[] p = pageOf(ref);
        int at = at(ref);
        long word = p[at] & ~LIVE;
        long diff = word ^ want;
        int n = Math.min(length, (int) (word >>> 32));
        int k = at + header;
        int i = 0;
        for (; i + 8 <= n; i += 8) diff |= p[k++] ^ buf.getLong(index + i);
        // The last word: compared only when the shorter key ends inside it (it is within both keys' words then).
        long last = tail(buf, index + i, n - i);
        return diff | ((i < n ? p[k] : 0) ^ last);
    }

    private void grow() {
        long[] old = index;
        long[] slots = new long[old.length * 2];
        int mask = slots.length - 1;
        for (long x : old) {
            if (x == 0) continue;
            int i = (int) x & mask;
            while (slots[i] != 0) i = (i + 1) & mask;
            slots[i] = x;
        }
        index = slots;
    }

    private long[] pageOf(int ref) {
        return pages[ref >>> OFFSET_BITS];
    }

    private static int at(int ref) {
        return ref & (MAX_PAGE - 1);
    }

    private long word(int ref, int offset) {
        return pages[ref >>> OFFSET_BITS][at(ref) + offset];
    }

    private void setWord(int ref, int offset, long value) {
        pages[ref >>> OFFSET_BITS][at(ref) + offset] = value;
    }

    private int keyLength(int ref) {
        return (int) ((word(ref, 0) & ~LIVE) >>> 32);
    }

    /** The ref in this table of {@code other}'s key {@code otherRef}, or -1. */
    int lookup(KeyTable other, int otherRef) {
        long w = other.word(otherRef, 0) & ~LIVE;
        int h = (int) w;
        long[] from = other.pageOf(otherRef);
        int fromAt = at(otherRef) + other.header;
        int mask = index.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            long x = index[i];
            if (x == 0) return -1;
            int ref = (int) (x >>> 32);
            // As in find: one branch for "not this key" (see there).
            long differs = (int) x == h ? difference(ref, w, from, fromAt) : 1;
            if (differs == 0) return ref;
        }
    }

    /** {@link #difference(int, long, ByteBuffer, int, int)} for a key held in another table's page. */
    private long difference(int ref, long want, long[] from, int fromAt) {
        long[] p = pageOf(ref);
        int at = at(ref);
        long word = p[at] & ~LIVE;
        long diff = word ^ want;
        int n = words(Math.min((int) (want >>> 32), (int) (word >>> 32)));
        at += header;
        for (int k = 0; k < n; k++) diff |= p[at + k] ^ from[fromAt + k];
        return diff;
    }

    /** Byte {@code i} of the key whose words start at {@code p[keyAt]}. */
    private static int keyByte(long[] p, int keyAt, int i) {
        return (int) (p[keyAt + (i >>> 3)] >>> ((i & 7) << 3)) & 0xFF;
    }

    /** Unsigned byte order of the key {@code ref} against the key at {@code buf[index, index + length)}. */
    int compare(int ref, ByteBuffer buf, int index, int length) {
        long[] p = pageOf(ref);
        int at = at(ref) + header;
        int len = keyLength(ref);
        int n = Math.min(len, length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(keyByte(p, at, i), buf.get(index + i) & 0xFF);
            if (c != 0) return c;
        }
        return Integer.compare(len, length);
    }

    /** The key {@code ref}'s bytes. */
    private byte[] key(int ref) {
        long[] p = pageOf(ref);
        int at = at(ref) + header;
        byte[] key = new byte[keyLength(ref)];
        for (int i = 0; i < key.length; i++) key[i] = (byte) keyByte(p, at, i);
        return key;
    }

    boolean live(int ref) {
        return word(ref, 0) < 0;
    }

    long createRevision(int ref) {
        return word(ref, 1);
    }

    long version(int ref) {
        return word(ref, 2);
    }

    /** The key {@code ref} is put with these facts. */
    void put(int ref, long create, long ver) {
        long[] p = pageOf(ref);
        int at = at(ref);
        long w = p[at];
        if (w >= 0) {
            liveCount++;
            p[at] = w | LIVE;
        }
        p[at + 1] = create;
        p[at + 2] = ver;
    }

    /** The key {@code ref} is deleted. */
    void delete(int ref) {
        long w = word(ref, 0);
        if (w < 0) {
            liveCount--;
            setWord(ref, 0, w & ~LIVE);
        }
    }

    /** The live key's value and what else its latest put says (keepsValues only). */
    void value(int ref, long modRevision, long lease, long valueOffset, int valueLength) {
        long[] p = pageOf(ref);
        int at = at(ref) + valuesAt;
        p[at] = modRevision;
        p[at + 1] = lease;
        p[at + 2] = valueOffset;
        p[at + 3] = valueLength;
    }

    /** Adds the live keys, with their facts, to {@code digest} (keepsValues only). */
    void addLive(StateDigest.Builder digest) {
        addLive(digest, null);
    }

    /**
     * Adds to {@code digest} the live keys after the part in {@code later} followed the part in this table
     * (keepsValues only): a key {@code later} holds as {@code later} left it, the others as this table did.
     */
    void addLiveFollowedBy(KeyTable later, StateDigest.Builder digest) {
        addLive(digest, later);
        later.addLive(digest, null);
    }

    /** Adds this table's live keys that {@code except} (when not null) does not hold. */
    private void addLive(StateDigest.Builder digest, KeyTable except) {
        if (!keepsValues) throw new IllegalStateException("a table without values");
        for (int r = first(); r >= 0; r = next(r)) {
            if (!live(r) || (except != null && except.lookup(this, r) >= 0)) continue;
            digest.add(key(r), createRevision(r), word(r, valuesAt), version(r), word(r, valuesAt + 1), word(r, valuesAt + 2),
                    (int) word(r, valuesAt + 3));
        }
    }

    /** Keeps the key's first record in this part (tracksFirst only). */
    void first(int ref, boolean delete, long revision, long create, long ver) {
        if (!tracksFirst) throw new IllegalStateException("a table that does not track first records");
        long[] p = pageOf(ref);
        int at = at(ref) + firstAt;
        p[at] = revision | (delete ? FIRST_DELETE : 0);
        p[at + 1] = create;
        p[at + 2] = ver;
    }

    boolean firstDelete(int ref) {
        return (word(ref, firstAt) & FIRST_DELETE) != 0;
    }

    long firstRevision(int ref) {
        return word(ref, firstAt) & ~FIRST_DELETE;
    }

    long firstCreateRevision(int ref) {
        return word(ref, firstAt + 1);
    }

    long firstVersion(int ref) {
        return word(ref, firstAt + 2);
    }

    /** The first entry's ref, or -1 when the table is empty; entries are in the order they were inserted. */
    int first() {
        return firstIn(0);
    }

    /** The ref of the entry after {@code ref}, or -1 after the last. */
    int next(int ref) {
        int p = ref >>> OFFSET_BITS;
        int at = at(ref) + header + words(keyLength(ref));
        return at < pageUsed[p] ? (p << OFFSET_BITS) | at : firstIn(p + 1);
    }

    /** The first entry in page {@code p} or a later one (a page is left empty when the first key is too large for it). */
    private int firstIn(int p) {
        for (; p < pageCount; p++) {
            if (pageUsed[p] > 0) return p << OFFSET_BITS;
        }
        return -1;
    }

    int size() {
        return size;
    }

    int liveCount() {
        return liveCount;
    }
}
