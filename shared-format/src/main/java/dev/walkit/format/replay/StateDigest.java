package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 of a replayed state: every live key in byte order with its create_revision, mod_revision,
 * version, lease and value, plus the revision. Two logs with the same digest start the store in the
 * same state.
 */
public final class StateDigest {
    private StateDigest() {
    }

    public static String of(KeyIndex keys, long revision, Replayer.Values values) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        ByteBuffer nums = ByteBuffer.allocate(8 * 6);
        for (KeyState k : keys.sortedLive()) {
            nums.clear();
            nums.putLong(k.key().length).putLong(k.createRevision()).putLong(k.modRevision()).putLong(k.version()).putLong(k.lease())
                    .putLong(k.valueLength());
            md.update(nums.array());
            md.update(k.key());
            md.update(values.read(k.valueOffset(), k.valueLength()));
        }
        nums.clear();
        nums.putLong(revision);
        md.update(nums.array(), 0, 8);
        return HexFormat.of().formatHex(md.digest());
    }
}
