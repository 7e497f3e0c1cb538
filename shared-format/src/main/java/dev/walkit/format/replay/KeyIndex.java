package dev.walkit.format.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keys to their {@link KeyState}: hashed while replaying (one lookup per record), sorted in byte
 * order on demand (the store's ordered map).
 */
public final class KeyIndex {
    /** Byte order of keys, as the store's ordered map and the snapshot prefix (§6) use. */
    public static final Comparator<byte[]> KEY_ORDER = Arrays::compareUnsigned;

    private static final class Key {
        final byte[] bytes;
        final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final Map<Key, KeyState> map = new HashMap<>();
    private int live;

    public KeyState get(byte[] key) {
        return map.get(new Key(key));
    }

    KeyState getOrCreate(byte[] key) {
        return map.computeIfAbsent(new Key(key), k -> new KeyState(k.bytes));
    }

    void liveChanged(boolean nowLive) {
        live += nowLive ? 1 : -1;
    }

    public int liveCount() {
        return live;
    }

    public int tombstoneCount() {
        return map.size() - live;
    }

    /** Every key ever seen (live and tombstoned), in no order: no sort. */
    public void forEach(java.util.function.Consumer<KeyState> action) {
        map.values().forEach(action);
    }

    /** Every key ever seen (live and tombstoned), in byte order. */
    public List<KeyState> sorted() {
        List<KeyState> all = new ArrayList<>(map.values());
        all.sort((a, b) -> KEY_ORDER.compare(a.key, b.key));
        return all;
    }

    /** Live keys in byte order. */
    public List<KeyState> sortedLive() {
        List<KeyState> out = new ArrayList<>(live);
        for (KeyState s : map.values()) {
            if (s.live) out.add(s);
        }
        out.sort((a, b) -> KEY_ORDER.compare(a.key, b.key));
        return out;
    }
}
