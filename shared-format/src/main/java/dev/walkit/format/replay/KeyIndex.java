package dev.walkit.format.replay;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

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
    private final Function<byte[], ? extends KeyState> newState;

    /** An index of plain {@link KeyState}s. */
    public KeyIndex() {
        this(KeyState::new);
    }

    /** An index whose states {@code newState} makes from a key (a tool's own kind of {@link KeyState}). */
    public KeyIndex(Function<byte[], ? extends KeyState> newState) {
        this.newState = newState;
    }

    /** Room for {@code n} keys without growing (a replay resumed with its keys restored: one table, no rehash). */
    public void ensureCapacity(int n) {
        int want = hashes.length;
        while ((long) n * 2 > want) want *= 2;
        if (want == hashes.length) return;
        while (hashes.length < want) grow();
    }

    /** 32-bit hash of the key bytes, never 0 (0 marks an empty slot): {@link KeyTable#hash}, the one key hash. */
    static int hash(byte[] k) {
        return KeyTable.hash(k);
    }

    public KeyState get(byte[] key) {
        return states[slot(key, 0, key.length, hash(key))];
    }

    KeyState getOrCreate(byte[] key) {
        int h = hash(key);
        int i = slot(key, 0, key.length, h);
        return states[i] != null ? states[i] : insert(i, h, key);
    }

    /**
     * {@link #getOrCreate(byte[])} for the key {@code keys[start, start + length)} whose {@link #hash} is {@code h}
     * (a {@link RecordBatch}'s): the key is copied only when it is new.
     */
    KeyState getOrCreate(byte[] keys, int start, int length, int h) {
        int i = slot(keys, start, length, h);
        return states[i] != null ? states[i] : insert(i, h, Arrays.copyOfRange(keys, start, start + length));
    }

    /** The slot of the key {@code keys[start, start + length)} with hash {@code h}, or the empty slot where it would go. */
    private int slot(byte[] keys, int start, int length, int h) {
        int mask = hashes.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int x = hashes[i];
            if (x == 0) return i;
            if (x == h) {
                byte[] k = states[i].key;
                if (Arrays.equals(k, 0, k.length, keys, start, start + length)) return i;
            }
        }
    }

    private KeyState insert(int i, int h, byte[] key) {
        KeyState s = newState.apply(key);
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

    /**
     * A key's state as a replay that stopped left it (a resumed replay's start, {@link Replayer.Checkpoint}): live with
     * its fields, or a tombstone of {@code modRevision} (its create revision and version as the delete left them).
     */
    public KeyState restore(byte[] key, boolean live, long createRevision, long modRevision, long version, long lease, long valueOffset,
                            int valueLength, long recordOffset) {
        KeyState s = getOrCreate(key);
        if (s.live != live) liveChanged(live);
        s.live = live;
        s.createRevision = createRevision;
        s.modRevision = modRevision;
        s.version = version;
        s.lease = live ? lease : 0;
        s.valueOffset = live ? valueOffset : 0;
        s.valueLength = live ? valueLength : 0;
        s.recordOffset = recordOffset;
        return s;
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
        KeyState[] all = new KeyState[size];
        int n = 0;
        for (KeyState s : states) {
            if (s != null) all[n++] = s;
        }
        KeySort.sort(all, 0, n);
        return Arrays.asList(all).subList(0, n);
    }

    /** Live keys in byte order. */
    public List<KeyState> sortedLive() {
        KeyState[] out = new KeyState[live];
        int n = 0;
        for (KeyState s : states) {
            if (s != null && s.live) out[n++] = s;
        }
        KeySort.sort(out, 0, n);
        return Arrays.asList(out).subList(0, n);
    }
}
