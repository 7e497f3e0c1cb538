package dev.walkit.format.replay;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Keys to their replayed create_revision, version and liveness, in primitive arrays: the key bytes
 * in one arena, the facts beside each slot's hash. Looked up straight from a record's bytes in the
 * read buffer, so a known key costs no allocation, and the garbage collector has a few large arrays
 * to skip instead of an object per key to copy (for the millions of keys of a large log, copying
 * {@link KeyState}s was a third of a replay's time). What {@link CleanReplay} keeps; the
 * {@link KeyIndex} of {@link Replayer} keeps objects because its users attach things to keys.
 *
 * <p>A part of a log read from its middle ({@code tracksFirst}) also keeps each key's first record
 * there, to be checked against the state the earlier part left.
 */
final class KeyTable {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_ARENA = Integer.MAX_VALUE - 16;

    private final boolean keepsValues;
    /*
     * One array, 4 longs a slot, so that a lookup touches one cache line (and the arena, to compare the
     * key): [hash (low 32 bits, never 0; 0 = empty) | key length (high 32)], [arena offset | LIVE],
     * [create_revision], [version]. Parallel arrays cost a cache miss each on a table of millions of keys.
     * A part that tracks first records has 8 longs a slot, the key's first record in this part beside
     * its state: [revision | FIRST_DELETE], [create_revision], [version], [unused].
     */
    private final int stride;
    private static final long LIVE = 1L << 62;
    private static final long FIRST_DELETE = 1L << 63;
    private long[] slots;
    // Per slot (keepsValues only): mod_revision, lease, value offset in the file, value length.
    private long[] values;
    private byte[] arena = new byte[1 << 16];
    private int arenaUsed;
    private int size;
    private int liveCount;
    private boolean inserted;

    KeyTable(boolean tracksFirst, boolean keepsValues) {
        this.keepsValues = keepsValues;
        this.stride = tracksFirst ? 8 : 4;
        this.slots = new long[stride << 12];
        if (keepsValues) values = new long[capacity() * 4];
    }

    /** 32-bit hash of the key at {@code buf[index, index + length)} (a little-endian buffer), 8 bytes at a time; never 0. */
    static int hash(ByteBuffer buf, int index, int length) {
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) h = (h ^ buf.getLong(index + i)) * 0xBF58476D1CE4E5B9L;
        long tail = 0;
        for (int j = 0; i < length; i++, j += 8) tail |= (buf.get(index + i) & 0xFFL) << j;
        h = (h ^ tail) * 0x94D049BB133111EBL;
        int r = (int) (h ^ (h >>> 32));
        return r == 0 ? 1 : r;
    }

    /**
     * The slot of the key at {@code buf[index, index + length)}, inserted (not live) when absent;
     * {@link #inserted()} tells which. The buffer must be little-endian.
     */
    int find(ByteBuffer buf, int index, int length) {
        int h = hash(buf, index, length);
        long head = (h & 0xFFFFFFFFL) | ((long) length << 32);
        int mask = capacity() - 1;
        int i = h & mask;
        for (; ; i = (i + 1) & mask) {
            long x = slots[i * stride];
            if (x == 0) break;
            if (x == head && equal((int) slots[i * stride + 1], buf, index, length)) {
                inserted = false;
                return i;
            }
        }
        if (arenaUsed > MAX_ARENA - length) throw new IllegalStateException("more than 2 GiB of distinct keys");
        if (arenaUsed + length > arena.length) {
            arena = Arrays.copyOf(arena, (int) Math.min(MAX_ARENA, Math.max(2L * arena.length, (long) arenaUsed + length)));
        }
        int at = arenaUsed;
        for (int j = 0; j < length; j++) arena[at + j] = buf.get(index + j);
        arenaUsed += length;
        slots[i * stride] = head;
        slots[i * stride + 1] = at;
        inserted = true;
        if (++size * 2 > capacity()) {
            grow();
            return slotOf(head, at);
        }
        return i;
    }

    /** Whether the last {@link #find} inserted the key. */
    boolean inserted() {
        return inserted;
    }

    private boolean equal(int at, ByteBuffer buf, int index, int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if ((long) LONGS.get(arena, at + i) != buf.getLong(index + i)) return false;
        }
        for (; i < length; i++) {
            if (arena[at + i] != buf.get(index + i)) return false;
        }
        return true;
    }

    /** The slot of the key stored at arena offset {@code at} (a key just inserted, after a grow). */
    private int slotOf(long head, int at) {
        int mask = capacity() - 1;
        for (int i = (int) head & mask; ; i = (i + 1) & mask) {
            if (slots[i * stride] == head && (int) slots[i * stride + 1] == at) return i;
        }
    }

    /** The slot in this table of {@code other}'s key in {@code otherSlot}, or -1. */
    int lookup(KeyTable other, int otherSlot) {
        long head = other.slots[otherSlot * other.stride];
        int len = (int) (head >>> 32);
        int from = (int) other.slots[otherSlot * other.stride + 1];
        int mask = capacity() - 1;
        for (int i = (int) head & mask; ; i = (i + 1) & mask) {
            long x = slots[i * stride];
            if (x == 0) return -1;
            int at = (int) slots[i * stride + 1];
            if (x == head && Arrays.equals(arena, at, at + len, other.arena, from, from + len)) return i;
        }
    }

    /** Unsigned byte order of the key in {@code slot} against the key at {@code buf[index, index + length)}. */
    int compare(int slot, ByteBuffer buf, int index, int length) {
        int at = (int) slots[slot * stride + 1];
        int len = (int) (slots[slot * stride] >>> 32);
        int n = Math.min(len, length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(arena[at + i] & 0xFF, buf.get(index + i) & 0xFF);
            if (c != 0) return c;
        }
        return Integer.compare(len, length);
    }

    private void grow() {
        long[] old = slots;
        long[] ovalues = values;
        int n = capacity() * 2;
        slots = new long[n * stride];
        if (keepsValues) values = new long[n * 4];
        int mask = n - 1;
        for (int j = 0; j < old.length / stride; j++) {
            long head = old[j * stride];
            if (head == 0) continue;
            int i = (int) head & mask;
            while (slots[i * stride] != 0) i = (i + 1) & mask;
            System.arraycopy(old, j * stride, slots, i * stride, stride);
            if (keepsValues) System.arraycopy(ovalues, j * 4, values, i * 4, 4);
        }
    }

    boolean live(int slot) {
        return (slots[slot * stride + 1] & LIVE) != 0;
    }

    long createRevision(int slot) {
        return slots[slot * stride + 2];
    }

    long version(int slot) {
        return slots[slot * stride + 3];
    }

    /** The key in {@code slot} is put with these facts. */
    void put(int slot, long create, long ver) {
        int b = slot * stride;
        if ((slots[b + 1] & LIVE) == 0) {
            liveCount++;
            slots[b + 1] |= LIVE;
        }
        slots[b + 2] = create;
        slots[b + 3] = ver;
    }

    /** The key in {@code slot} is deleted. */
    void delete(int slot) {
        int b = slot * stride;
        if ((slots[b + 1] & LIVE) != 0) {
            liveCount--;
            slots[b + 1] &= ~LIVE;
        }
    }

    /** The live key's value and what else its latest put says (keepsValues only). */
    void value(int slot, long modRevision, long lease, long valueOffset, int valueLength) {
        int b = slot * 4;
        values[b] = modRevision;
        values[b + 1] = lease;
        values[b + 2] = valueOffset;
        values[b + 3] = valueLength;
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
        for (int s = 0; s < capacity(); s++) {
            if (!used(s) || !live(s) || (except != null && except.lookup(this, s) >= 0)) continue;
            int at = (int) slots[s * stride + 1];
            byte[] key = Arrays.copyOfRange(arena, at, at + (int) (slots[s * stride] >>> 32));
            digest.add(key, createRevision(s), values[s * 4], version(s), values[s * 4 + 1], values[s * 4 + 2], (int) values[s * 4 + 3]);
        }
    }

    /** Keeps the key's first record in this part (tracksFirst only). */
    void first(int slot, boolean delete, long revision, long create, long ver) {
        int b = slot * stride;
        slots[b + 4] = revision | (delete ? FIRST_DELETE : 0);
        slots[b + 5] = create;
        slots[b + 6] = ver;
    }

    boolean firstDelete(int slot) {
        return (slots[slot * stride + 4] & FIRST_DELETE) != 0;
    }

    long firstRevision(int slot) {
        return slots[slot * stride + 4] & ~FIRST_DELETE;
    }

    long firstCreateRevision(int slot) {
        return slots[slot * stride + 5];
    }

    long firstVersion(int slot) {
        return slots[slot * stride + 6];
    }

    /** Slots are 0 to capacity - 1; {@link #used} says which hold a key. */
    int capacity() {
        return slots.length / stride;
    }

    boolean used(int slot) {
        return slots[slot * stride] != 0;
    }

    int size() {
        return size;
    }

    int liveCount() {
        return liveCount;
    }
}
