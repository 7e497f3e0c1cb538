package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 of a replayed state: every live key in byte order with its create_revision, mod_revision,
 * version, lease and the SHA-256 of its value, plus the revision. Two logs with the same digest start the store in the
 * same state.
 */
public final class StateDigest {
    private StateDigest() {
    }

    /** Live keys in byte order, with their facts: what a digest is made of, from any replayed state. */
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
        List<KeyState> live = keys.sortedLive();
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

    /**
     * The digest of {@code live} at {@code revision}. Values are read in file-offset order (each
     * value's own SHA-256 kept, 32 bytes a key), then the keys are hashed in byte order.
     */
    public static String of(LiveKeys live, long revision, Replayer.Values values) {
        int n = live.size();
        // (offset, index) packed for a primitive sort: offsets below 2^39 (512 GiB), keys below 2^24.
        boolean packable = n < (1 << 24);
        for (int i = 0; i < n && packable; i++) packable = live.valueOffset(i) < (1L << 39);
        long[] byOffset = new long[n];
        for (int i = 0; i < n; i++) byOffset[i] = packable ? (live.valueOffset(i) << 24) | i : i;
        if (packable) Arrays.sort(byOffset);
        byte[] valueHashes = new byte[n * 32];
        MessageDigest md = sha256();
        for (long packed : byOffset) {
            int i = (int) (packed & 0xFF_FFFF);
            md.update(values.read(live.valueOffset(i), live.valueLength(i)));
            System.arraycopy(md.digest(), 0, valueHashes, i * 32, 32);
        }
        ByteBuffer nums = ByteBuffer.allocate(8 * 6);
        for (int i = 0; i < n; i++) {
            byte[] key = live.key(i);
            nums.clear();
            nums.putLong(key.length).putLong(live.createRevision(i)).putLong(live.modRevision(i)).putLong(live.version(i))
                    .putLong(live.lease(i)).putLong(live.valueLength(i));
            md.update(nums.array());
            md.update(key);
            md.update(valueHashes, i * 32, 32);
        }
        nums.clear();
        nums.putLong(revision);
        md.update(nums.array(), 0, 8);
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
