package dev.walkit.format.replay;

import java.nio.ByteBuffer;
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
 * Values are read in file-offset order.
 */
public final class StateDigest {
    private StateDigest() {
    }

    /** The digest of {@code keys} at {@code revision}. */
    public static String of(KeyIndex keys, long revision, Replayer.Values values) {
        Builder b = new Builder();
        keys.forEach(k -> {
            if (k.live()) b.add(k.key(), k.createRevision(), k.modRevision(), k.version(), k.lease(), k.valueOffset(), k.valueLength());
        });
        return b.digest(revision, values);
    }

    /** Collects the live keys of a state, in any order, with their facts; then makes the digest. */
    public static final class Builder {
        private static final int FACTS = 6;
        private byte[][] keys = new byte[1024][];
        /** Per key: create_revision, mod_revision, version, lease, value offset, value length. */
        private long[] facts = new long[1024 * FACTS];
        private int n;

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

        /** The digest of the keys added, at {@code revision}; values read through {@code values} in file-offset order. */
        public String digest(long revision, Replayer.Values values) {
            MessageDigest md = sha256();
            ByteBuffer nums = ByteBuffer.allocate(8 * FACTS);
            long[] sum = new long[4];
            for (int i : byValueOffset()) {
                int f = i * FACTS;
                nums.clear();
                nums.putLong(keys[i].length).putLong(facts[f]).putLong(facts[f + 1]).putLong(facts[f + 2]).putLong(facts[f + 3])
                        .putLong(facts[f + 5]);
                md.update(nums.array());
                md.update(keys[i]);
                md.update(values.read(facts[f + 4], (int) facts[f + 5]));
                StateDigest.add(sum, md.digest());
            }
            ByteBuffer total = ByteBuffer.allocate(8 * 6);
            for (int j = 3; j >= 0; j--) total.putLong(sum[j]);
            total.putLong(n).putLong(revision);
            return HexFormat.of().formatHex(md.digest(total.array()));
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
        ByteBuffer h = ByteBuffer.wrap(hash);
        long carry = 0;
        for (int j = 0; j < 4; j++) {
            long x = h.getLong(24 - 8 * j);
            long s = sum[j] + x;
            long c = Long.compareUnsigned(s, x) < 0 ? 1 : 0;
            long t = s + carry;
            c += Long.compareUnsigned(t, s) < 0 ? 1 : 0;
            sum[j] = t;
            carry = c;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
