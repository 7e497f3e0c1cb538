package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A SHA-256 digest of a replayed state, in no particular key order: each live key's entry (key length,
 * create_revision, mod_revision, version, lease, value length, key bytes, value bytes) is hashed on
 * its own, the entry hashes are added as 256-bit numbers (mod 2^256), and the digest is the SHA-256 of
 * that sum, the number of live keys and the revision. Two logs with the same digest start the store in
 * the same state. Adding instead of hashing in key order spares a sort of every key by its bytes
 * (a third of walrecover's read-back); keys are unique in a state, so no entry can cancel another.
 * Values are read from the file in offset order, in runs ({@link Builder#digest}).
 */
public final class StateDigest {
    private StateDigest() {
    }

    /** The digest of {@code keys} at {@code revision}. */
    public static String of(KeyIndex keys, long revision, Source values) {
        Builder b = new Builder();
        keys.forEach(k -> {
            if (k.live()) b.add(k.key(), k.createRevision(), k.modRevision(), k.version(), k.lease(), k.valueOffset(), k.valueLength());
        });
        return b.digest(revision, values);
    }

    /** Where values are read from: fills a buffer, from its position to its limit, with the file's bytes from an offset ({@code WalFile::readFully}). */
    public interface Source {
        void readFully(ByteBuffer into, long offset);
    }

    /** Collects the live keys of a state, in any order, with their facts; then makes the digest. */
    public static final class Builder {
        private static final int FACTS = 6;
        private byte[][] keys = new byte[1024][];
        /** Per key: create_revision, mod_revision, version, lease, value offset, value length. */
        private long[] facts = new long[1024 * FACTS];
        private int n;
        // For digest (each call starts them afresh):
        private MessageDigest md;
        private final long[] sum = new long[4];
        private final byte[] hash = new byte[32];
        /** One entry's bytes, hashed with one update. */
        private byte[] entry = new byte[512];
        /** Where the last {@link #runFrom} run ends in the file. */
        private long runEnd;

        /** One live key. */
        public void add(byte[] key, long createRevision, long modRevision, long version, long lease, long valueOffset, int valueLength) {
            if (n == keys.length) {
                keys = Arrays.copyOf(keys, 2 * n);
                facts = Arrays.copyOf(facts, 2 * n * FACTS);
            }
            keys[n] = key;
            int f = n * FACTS;
            facts[f] = createRevision;
            facts[f + 1] = modRevision;
            facts[f + 2] = version;
            facts[f + 3] = lease;
            facts[f + 4] = valueOffset;
            facts[f + 5] = valueLength;
            n++;
        }

        /**
         * The digest of the keys added, at {@code revision}, their values read from {@code file}: in offset
         * order, values less than {@link #GAP} bytes apart read together, one positional read a run of up to
         * {@link #RUN} bytes (without moving the file's window). The live values of a log are few and small
         * beside it: of a 2 GiB generated log, 377 k values and 12.8 MB, one every 5.7 KB on average.
         * Read through a 1 MiB window, a digest copied 2.0 GB out of the page cache; in runs, 32 k reads
         * and 626 MB (a read per value would be 377 k system calls).
         */
        public String digest(long revision, Source file) {
            md = sha256();
            Arrays.fill(sum, 0);
            int[] order = byValueOffset();
            ByteBuffer buf = ByteBuffer.allocateDirect(RUN);
            for (int a = 0, b; a < n; a = b) {
                b = runFrom(order, a);
                long start = facts[order[a] * FACTS + 4];
                // (A value larger than a run is read by itself, into a buffer as large, kept for the next.)
                if (runEnd - start > buf.capacity()) buf = ByteBuffer.allocateDirect((int) (runEnd - start));
                buf.clear().limit((int) (runEnd - start));
                file.readFully(buf, start);
                for (int k = a; k < b; k++) addEntry(order[k], buf, start);
            }
            byte[] total = new byte[8 * 6];
            for (int j = 3; j >= 0; j--) putLong(total, 8 * (3 - j), sum[j]);
            putLong(total, 32, n);
            putLong(total, 40, revision);
            return HexFormat.of().formatHex(md.digest(total));
        }

        /**
         * The run of values that starts with {@code order[a]}: returns the index in {@code order} after its last,
         * and sets {@link #runEnd}. (Methods of their own, this and {@link #addEntry}, called once a run or a key:
         * compiled as methods after a few hundred calls. In the digest's loop, they ran in the interpreter until
         * on-stack replacement, tens of thousands of keys in; and the compiled loop was thrown away and compiled
         * again five times, each a first run of a branch that had not been taken.)
         */
        private int runFrom(int[] order, int a) {
            long start = facts[order[a] * FACTS + 4];
            long end = start + facts[order[a] * FACTS + 5];
            int b = a + 1;
            for (; b < n; b++) {
                long o = facts[order[b] * FACTS + 4];
                long e = o + facts[order[b] * FACTS + 5];
                if (o < start || o - end >= GAP || e - start > RUN) break;
                end = Math.max(end, e);
            }
            runEnd = end;
            return b;
        }

        /** Adds key {@code i}'s entry hash to the sum: its facts, key and value (at {@code valueOffset - runStart} in {@code run}). */
        private void addEntry(int i, ByteBuffer run, long runStart) {
            int f = i * FACTS;
            byte[] key = keys[i];
            int valueLength = (int) facts[f + 5];
            int length = 8 * FACTS + key.length + valueLength;
            if (length > entry.length) entry = new byte[Math.max(length, 2 * entry.length)];
            byte[] e = entry;
            putLong(e, 0, key.length);
            putLong(e, 8, facts[f]);
            putLong(e, 16, facts[f + 1]);
            putLong(e, 24, facts[f + 2]);
            putLong(e, 32, facts[f + 3]);
            putLong(e, 40, valueLength);
            System.arraycopy(key, 0, e, 8 * FACTS, key.length);
            run.get((int) (facts[f + 4] - runStart), e, 8 * FACTS + key.length, valueLength);
            md.update(e, 0, length);
            try {
                md.digest(hash, 0, hash.length);
            } catch (DigestException x) {
                throw new IllegalStateException(x);
            }
            StateDigest.add(sum, hash);
        }

        /** Key indexes in value-offset order: values are read forward through the file. */
        private int[] byValueOffset() {
            int[] order = new int[n];
            // (offset, index) packed for a primitive sort: offsets below 2^39 (512 GiB), keys below 2^24.
            boolean packable = n < (1 << INDEX_BITS);
            for (int i = 0; i < n && packable; i++) packable = facts[i * FACTS + 4] < (1L << OFFSET_BITS);
            if (!packable) {
                for (int i = 0; i < n; i++) order[i] = i;
                return order;
            }
            long[] packed = new long[n];
            for (int i = 0; i < n; i++) packed[i] = (facts[i * FACTS + 4] << INDEX_BITS) | i;
            sortByOffset(packed);
            for (int i = 0; i < n; i++) order[i] = (int) (packed[i] & ((1 << INDEX_BITS) - 1));
            return order;
        }
    }

    /**
     * Values closer than this are read in one run: a system call costs about what copying 8 KiB out of the page
     * cache does (1–2 µs here). On the 2 GiB log: 32 k reads of 626 MB (a gap of 4 KiB: 81 k reads of 349 MB;
     * 16 KiB: 13 k reads of 840 MB).
     */
    static final int GAP = 8 << 10;
    /** The most bytes read at once (a larger value is read by itself). */
    static final int RUN = 1 << 20;

    /** A key's index in the low bits of a packed (offset, index). */
    static final int INDEX_BITS = 24;
    /** Its value's offset above them. */
    static final int OFFSET_BITS = 39;

    /** Bits of the offset a pass of {@link #sortByOffset} sorts by. */
    private static final int DIGIT = 13;

    /**
     * Sorts {@code a} (each an offset below 2^{@value #OFFSET_BITS} shifted left by {@value #INDEX_BITS}, or'ed with
     * an index below 2^{@value #INDEX_BITS}) by offset: a radix sort of the offset's bits, {@value #DIGIT} a pass
     * ({@value #OFFSET_BITS} is three of them), a pass skipped when every entry has the same
     * digit there. Each digest sorts once, mostly before the compiler has the sort: for 380 k live keys,
     * {@code Arrays.sort} took ≈ 110 ms of it.
     */
    static void sortByOffset(long[] a) {
        if (a.length < 2) return;
        long[] src = a;
        long[] dst = new long[a.length];
        int[] start = new int[1 << DIGIT];
        int mask = (1 << DIGIT) - 1;
        for (int shift = INDEX_BITS; shift < INDEX_BITS + OFFSET_BITS; shift += DIGIT) {
            Arrays.fill(start, 0);
            for (long x : src) start[(int) (x >>> shift) & mask]++;
            if (start[(int) (src[0] >>> shift) & mask] == src.length) continue;
            int sum = 0;
            for (int d = 0; d <= mask; d++) {
                int c = start[d];
                start[d] = sum;
                sum += c;
            }
            for (long x : src) dst[start[(int) (x >>> shift) & mask]++] = x;
            long[] t = src;
            src = dst;
            dst = t;
        }
        if (src != a) System.arraycopy(src, 0, a, 0, a.length);
    }

    /** {@code sum += hash} mod 2^256; {@code sum} in 64-bit limbs, least significant first; {@code hash} big-endian. */
    static void add(long[] sum, byte[] hash) {
        long carry = 0;
        for (int j = 0; j < 4; j++) {
            long x = getLong(hash, 24 - 8 * j);
            long s = sum[j] + x;
            long c = Long.compareUnsigned(s, x) < 0 ? 1 : 0;
            long t = s + carry;
            c += Long.compareUnsigned(t, s) < 0 ? 1 : 0;
            sum[j] = t;
            carry = c;
        }
    }

    /** Big-endian, in plain shifts: these run before the compiler has them, where a ByteBuffer's checks cost most. */
    private static void putLong(byte[] b, int at, long v) {
        for (int k = 7; k >= 0; k--) {
            b[at + k] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int k = 0; k < 8; k++) v = (v << 8) | (b[at + k] & 0xFF);
        return v;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
