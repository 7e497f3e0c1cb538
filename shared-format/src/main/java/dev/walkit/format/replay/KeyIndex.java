package dev.walkit.format.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Keys to their {@link KeyState}: hashed while replaying (one lookup per record, no allocation when
 * the key is known), sorted in byte order on demand (the store's ordered map).
 */
public final class KeyIndex {
    /** Byte order of keys, as the store's ordered map and the snapshot prefix (§6) use. */
    public static final Comparator<byte[]> KEY_ORDER = Arrays::compareUnsigned;

    /*
     * Open addressing with linear probing: the hashes in one int array (a probe compares ints in
     * sequence), the states beside them; key bytes are compared only when the hashes match. No
     * wrapper or node is allocated per lookup, unlike a HashMap of wrapped byte arrays.
     */
    private int[] hashes = new int[1 << 12];
    private KeyState[] states = new KeyState[1 << 12];
    private int size;
    private int live;
    /** 32-bit hash of the key bytes, 8 at a time; never 0 (0 marks an empty slot). */
    static int hash(byte[] k) {
        long h = 0x9E3779B97F4A7C15L ^ k.length;
        int i = 0;
        for (; i + 8 <= k.length; i += 8) h = (h ^ (long) LONGS.get(k, i)) * 0xBF58476D1CE4E5B9L;
        long tail = 0;
        for (int j = 0; i < k.length; i++, j += 8) tail |= (k[i] & 0xFFL) << j;
        h = (h ^ tail) * 0x94D049BB133111EBL;
        int r = (int) (h ^ (h >>> 32));
        return r == 0 ? 1 : r;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    public KeyState get(byte[] key) {
        int h = hash(key);
        int mask = hashes.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int x = hashes[i];
            if (x == 0) return null;
            if (x == h && Arrays.equals(states[i].key, key)) return states[i];
        }
    }

    KeyState getOrCreate(byte[] key) {
        int h = hash(key);
        int mask = hashes.length - 1;
        int i = h & mask;
        for (; ; i = (i + 1) & mask) {
            int x = hashes[i];
            if (x == 0) break;
            if (x == h && Arrays.equals(states[i].key, key)) return states[i];
        }
        KeyState s = new KeyState(key);
        hashes[i] = h;
        states[i] = s;
        if (++size * 2 > hashes.length) grow();
        return s;
    }

    private void grow() {
        int[] oh = hashes;
        KeyState[] os = states;
        hashes = new int[oh.length * 2];
        states = new KeyState[oh.length * 2];
        int mask = hashes.length - 1;
        for (int j = 0; j < oh.length; j++) {
            if (oh[j] == 0) continue;
            int i = oh[j] & mask;
            while (hashes[i] != 0) i = (i + 1) & mask;
            hashes[i] = oh[j];
            states[i] = os[j];
        }
    }

    void liveChanged(boolean nowLive) {
        live += nowLive ? 1 : -1;
    }

    public int liveCount() {
        return live;
    }

    public int tombstoneCount() {
        return size - live;
    }

    /** Every key ever seen (live and tombstoned), in no order: no sort. */
    public void forEach(java.util.function.Consumer<KeyState> action) {
        for (KeyState s : states) {
            if (s != null) action.accept(s);
        }
    }

    /** Every key ever seen (live and tombstoned), in byte order. */
    public List<KeyState> sorted() {
        List<KeyState> all = new ArrayList<>(size);
        forEach(all::add);
        all.sort((a, b) -> KEY_ORDER.compare(a.key, b.key));
        return all;
    }

    /** Live keys in byte order. */
    public List<KeyState> sortedLive() {
        List<KeyState> out = new ArrayList<>(live);
        forEach(s -> {
            if (s.live) out.add(s);
        });
        out.sort((a, b) -> KEY_ORDER.compare(a.key, b.key));
        return out;
    }
}
