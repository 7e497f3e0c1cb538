package dev.walkit.format.pass;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

/** A saved index's keys and applied records, read where they lie in the mapped file ({@link SavedIndex}): nothing copied at open. */
final class MappedHistory {
    private MappedHistory() {
    }

    /** The keys: {@link SavedIndex#KEY_ENTRY}-byte entries in byte order, their bytes in the blob. */
    static final class Keys implements HistoryKeys {
        /** In an entry's key length: the key is live at the end. */
        static final int LIVE = 0x8000_0000;
        static final int LENGTH = ~LIVE;
        private final ByteBuffer b;
        private final int entries;
        private final int size;
        private final int blob;

        Keys(ByteBuffer b, int entries, int size, int blob) {
            this.b = b;
            this.entries = entries;
            this.size = size;
            this.blob = blob;
        }

        private int at(int i) {
            return entries + i * SavedIndex.KEY_ENTRY;
        }

        /** Compares key {@code i} with {@code key}, unsigned, as etcd orders keys. */
        private int compare(int i, byte[] key) {
            int e = at(i);
            int from = blob + (int) b.getLong(e);
            int len = b.getInt(e + 8) & LENGTH;
            int n = Math.min(len, key.length);
            for (int j = 0; j < n; j++) {
                int c = Integer.compare(b.get(from + j) & 0xff, key[j] & 0xff);
                if (c != 0) return c;
            }
            return Integer.compare(len, key.length);
        }

        @Override
        public Entry find(byte[] key) {
            int i = lowerBound(key);
            return i < size && compare(i, key) == 0 ? get(i) : null;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public Entry get(int i) {
            return new MappedEntry(at(java.util.Objects.checkIndex(i, size)));
        }

        @Override
        public int lowerBound(byte[] key) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (compare(mid, key) < 0) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        @Override
        public void forEach(Consumer<Entry> action) {
            for (int i = 0; i < size; i++) action.accept(new MappedEntry(at(i)));
        }

        /** One key's entry, read from the map when asked. */
        private final class MappedEntry implements Entry {
            private final int e;

            MappedEntry(int e) {
                this.e = e;
            }

            @Override
            public byte[] key() {
                byte[] k = new byte[b.getInt(e + 8) & LENGTH];
                b.get(blob + (int) b.getLong(e), k);
                return k;
            }

            @Override
            public int last() {
                return b.getInt(e + 12);
            }

            @Override
            public int count() {
                return b.getInt(e + 16);
            }

            @Override
            public boolean live() {
                return (b.getInt(e + 8) & LIVE) != 0;
            }

            @Override
            public long lease() {
                return b.getLong(e + 24);
            }

            @Override
            public int valueLength() {
                return b.getInt(e + 20);
            }

            @Override
            public long createRevision() {
                return b.getLong(e + 32);
            }

            @Override
            public long version() {
                return b.getLong(e + 40);
            }

            @Override
            public long valueOffset() {
                return b.getLong(e + 48);
            }
        }
    }

    /** The applied records' columns. */
    static final class Applied implements AppliedColumns {
        private static final int DELETE = 0x8000_0000;
        private final ByteBuffer b;
        private final int size;
        private final int transactionCount;
        private final Column offsets;
        private final Column revisions;
        private final int links;
        private final int transactions;

        private Applied(ByteBuffer b, int size, int transactionCount, Column offsets, Column revisions, int links) {
            this.b = b;
            this.size = size;
            this.transactionCount = transactionCount;
            this.offsets = offsets;
            this.revisions = revisions;
            this.links = links;
            this.transactions = links + 4 * size;
        }

        static Applied at(ByteBuffer b, int at) {
            int size = b.getInt(at);
            int tc = b.getInt(at + 4);
            Column offsets = new Column(b, (int) b.getLong(at + 8));
            Column revisions = new Column(b, (int) b.getLong(at + 16));
            return new Applied(b, size, tc, offsets, revisions, revisions.end());
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public long offset(int id) {
            return offsets.get(id);
        }

        @Override
        public long revision(int id) {
            return revisions.get(id);
        }

        @Override
        public boolean isDelete(int id) {
            return (b.getInt(links + 4 * id) & DELETE) != 0;
        }

        @Override
        public int previous(int id) {
            return (b.getInt(links + 4 * id) & ~DELETE) - 1;
        }

        @Override
        public int transactionCount() {
            return transactionCount;
        }

        @Override
        public int transactionStart(int i) {
            return b.getInt(transactions + 4 * i);
        }
    }

    /** A column of longs in chunks of 2^20: each its base and its ints of difference, or its longs where wide. */
    static final class Column {
        private final long[] base;
        private final boolean[] wide;
        private final int[] data;
        private final int end;
        private final ByteBuffer b;

        Column(ByteBuffer b, int at) {
            this.b = b;
            int chunks = b.getInt(at);
            base = new long[chunks];
            wide = new boolean[chunks];
            data = new int[chunks];
            int e = at + 8 + 24 * chunks;
            for (int c = 0; c < chunks; c++) {
                int t = at + 8 + 24 * c;
                base[c] = b.getLong(t);
                wide[c] = b.getInt(t + 8) != 0;
                int n = b.getInt(t + 12);
                data[c] = (int) b.getLong(t + 16);
                e = data[c] + (wide[c] ? 8 : 4) * n;
            }
            end = e;
        }

        long get(int i) {
            int c = i >>> PackedLongs.SHIFT;
            int j = i & PackedLongs.MASK;
            return wide[c] ? b.getLong(data[c] + 8 * j) : base[c] + b.getInt(data[c] + 4 * j);
        }

        /** The position just past the column. */
        int end() {
            return end;
        }
    }
}
