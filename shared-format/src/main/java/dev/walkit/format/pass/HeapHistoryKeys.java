package dev.walkit.format.pass;

import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/** The keys of a history the replay made: replay's own key index, each key's state carrying its chain head. */
final class HeapHistoryKeys implements HistoryKeys {
    /** The replayed state of a key with its history: the history rides on replay's own key state. */
    static final class HistoryState extends KeyState implements Entry {
        /** The key's last applied record in {@link AppliedRecords}, or -1 until one is applied. */
        int last = -1;
        /** How many of its records were applied. */
        int count;
        /** Restored from a saved history (its place in key order known), not added by the replay. */
        boolean restored;

        HistoryState(byte[] key) {
            super(key);
        }

        @Override
        public int last() {
            return last;
        }

        @Override
        public int count() {
            return count;
        }
    }

    private final KeyIndex index;
    /** The keys with a history in byte order, built on first use (range, diff, completion); find looks up by hash. */
    private HistoryState[] sorted;
    /** Keys already in byte order (a saved history's, restored), or null: only the others are sorted, then merged in. */
    private final HistoryState[] presorted;

    HeapHistoryKeys(KeyIndex index) {
        this(index, null);
    }

    HeapHistoryKeys(KeyIndex index, HistoryState[] presorted) {
        this.index = index;
        this.presorted = presorted;
        if (presorted != null) for (HistoryState s : presorted) s.restored = true;
    }

    /** The index a replay fills: one made of {@link HistoryState}s. */
    static KeyIndex newIndex() {
        return new KeyIndex(HistoryState::new);
    }

    @Override
    public Entry find(byte[] key) {
        HistoryState s = (HistoryState) index.get(key);
        return s == null || s.last < 0 ? null : s;
    }

    @Override
    public int size() {
        return sorted().length;
    }

    @Override
    public Entry get(int i) {
        return sorted()[i];
    }

    @Override
    public int lowerBound(byte[] key) {
        HistoryState[] keys = sorted();
        int lo = 0;
        int hi = keys.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(keys[mid].key(), key) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    @Override
    public void forEach(Consumer<Entry> action) {
        index.forEach(k -> {
            HistoryState h = (HistoryState) k;
            if (h.last >= 0) action.accept(h);
        });
    }

    private synchronized HistoryState[] sorted() {
        if (sorted == null && presorted != null) {
            // The keys the resumed replay added, sorted (few), merged into the restored ones' order.
            List<HistoryState> added = new java.util.ArrayList<>();
            index.forEach(k -> {
                HistoryState h = (HistoryState) k;
                if (!h.restored && h.last >= 0) added.add(h);
            });
            added.sort((x, y) -> Arrays.compareUnsigned(x.key(), y.key()));
            HistoryState[] all = new HistoryState[presorted.length + added.size()];
            int i = 0;
            int j = 0;
            int n = 0;
            while (i < presorted.length || j < added.size()) {
                if (j == added.size() || (i < presorted.length && Arrays.compareUnsigned(presorted[i].key(), added.get(j).key()) < 0)) {
                    all[n++] = presorted[i++];
                } else {
                    all[n++] = added.get(j++);
                }
            }
            sorted = all;
        }
        if (sorted == null) {
            List<KeyState> all = index.sorted();
            int n = 0;
            HistoryState[] a = new HistoryState[all.size()];
            for (KeyState k : all) {
                HistoryState h = (HistoryState) k;
                if (h.last >= 0) a[n++] = h;
            }
            sorted = n == a.length ? a : Arrays.copyOf(a, n);
        }
        return sorted;
    }
}
