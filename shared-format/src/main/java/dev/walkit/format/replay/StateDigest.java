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

    /**
     * The digest of {@code keys} at {@code revision}. Values are read in file-offset order (each
     * value's own SHA-256 kept, 32 bytes a key), then the keys are hashed in byte order.
     */
    public static String of(KeyIndex keys, long revision, Replayer.Values values) {
        List<KeyState> live = keys.sortedLive();
        int n = live.size();
        // (offset, index) packed for a primitive sort: offsets below 2^39 (512 GiB), keys below 2^24.
        boolean packable = n < (1 << 24) && live.stream().allMatch(k -> k.valueOffset() < (1L << 39));
        long[] byOffset = new long[n];
        for (int i = 0; i < n; i++) byOffset[i] = packable ? (live.get(i).valueOffset() << 24) | i : i;
        if (packable) Arrays.sort(byOffset);
        byte[] valueHashes = new byte[n * 32];
        MessageDigest md = sha256();
        for (long packed : byOffset) {
            int i = (int) (packed & 0xFF_FFFF);
            KeyState k = live.get(i);
            md.update(values.read(k.valueOffset(), k.valueLength()));
            System.arraycopy(md.digest(), 0, valueHashes, i * 32, 32);
        }
        ByteBuffer nums = ByteBuffer.allocate(8 * 6);
        for (int i = 0; i < n; i++) {
            KeyState k = live.get(i);
            nums.clear();
            nums.putLong(k.key().length).putLong(k.createRevision()).putLong(k.modRevision()).putLong(k.version()).putLong(k.lease())
                    .putLong(k.valueLength());
            md.update(nums.array());
            md.update(k.key());
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
