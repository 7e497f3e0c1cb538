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

    HeapHistoryKeys(KeyIndex index) {
        this.index = index;
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
