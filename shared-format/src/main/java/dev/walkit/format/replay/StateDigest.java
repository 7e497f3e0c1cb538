package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

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

    /** Live keys, in any order, with their facts: what a digest is made of, from any replayed state. */
    public interface LiveKeys {
        int size();

        byte[] key(int i);

        long createRevision(int i);

        long modRevision(int i);

        long version(int i);

        long lease(int i);

        long valueOffset(int i);

        int valueLength(int i);
    }

    /** The digest of {@code keys} at {@code revision}. */
    public static String of(KeyIndex keys, long revision, Replayer.Values values) {
        List<KeyState> live = new java.util.ArrayList<>(keys.liveCount());
        keys.forEach(k -> {
            if (k.live()) live.add(k);
        });
        return of(new LiveKeys() {
            @Override
            public int size() {
                return live.size();
            }

            @Override
            public byte[] key(int i) {
                return live.get(i).key();
            }

            @Override
            public long createRevision(int i) {
                return live.get(i).createRevision();
            }

            @Override
            public long modRevision(int i) {
                return live.get(i).modRevision();
            }

            @Override
            public long version(int i) {
                return live.get(i).version();
            }

            @Override
            public long lease(int i) {
                return live.get(i).lease();
            }

            @Override
            public long valueOffset(int i) {
                return live.get(i).valueOffset();
            }

            @Override
            public int valueLength(int i) {
                return live.get(i).valueLength();
            }
        }, revision, values);
    }

    /** The digest of {@code live} at {@code revision}. */
    public static String of(LiveKeys live, long revision, Replayer.Values values) {
        int n = live.size();
        // (offset, index) packed for a primitive sort: offsets below 2^39 (512 GiB), keys below 2^24.
        boolean packable = n < (1 << 24);
        long[] byOffset = new long[n];
        for (int i = 0; i < n; i++) {
            long off = live.valueOffset(i);
            packable &= off < (1L << 39);
            byOffset[i] = (off << 24) | i;
        }
        if (packable) {
            Arrays.sort(byOffset);
        } else {
            for (int i = 0; i < n; i++) byOffset[i] = i;
        }
        MessageDigest md = sha256();
        ByteBuffer nums = ByteBuffer.allocate(8 * 6);
        long[] sum = new long[4];
        for (long packed : byOffset) {
            int i = (int) (packed & 0xFF_FFFF);
            byte[] key = live.key(i);
            nums.clear();
            nums.putLong(key.length).putLong(live.createRevision(i)).putLong(live.modRevision(i)).putLong(live.version(i))
                    .putLong(live.lease(i)).putLong(live.valueLength(i));
            md.update(nums.array());
            md.update(key);
            md.update(values.read(live.valueOffset(i), live.valueLength(i)));
            add(sum, md.digest());
        }
        ByteBuffer total = ByteBuffer.allocate(8 * 6);
        for (int j = 3; j >= 0; j--) total.putLong(sum[j]);
        total.putLong(n).putLong(revision);
        return HexFormat.of().formatHex(md.digest(total.array()));
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
