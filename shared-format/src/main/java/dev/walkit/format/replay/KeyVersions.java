package dev.walkit.format.replay;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Each key's version counted as its records come, for a store that keeps none (kine): a put makes version 1 when it
 * creates the key (or the key is not live), its live version plus one otherwise; a delete ends it. Held in the light
 * replay's {@link KeyTable}: no allocation per record once a key is known.
 */
public final class KeyVersions {
    private final KeyTable keys = new KeyTable(false, false);

    /** The version a put of {@code key} gives it ({@code create}: a create, version 1 whatever came before). */
    public long put(byte[] key, boolean create) {
        int ref = ref(key);
        long version = Rules.countedVersion(create, keys.live(ref), keys.version(ref));
        keys.put(ref, 0, version);
        return version;
    }

    /** {@code key}'s version is {@code version} (a snapshot record's, as stored). */
    public void set(byte[] key, long version) {
        keys.put(ref(key), 0, version);
    }

    /** {@code key} is deleted: its next put is version 1. */
    public void delete(byte[] key) {
        keys.delete(ref(key));
    }

    private int ref(byte[] key) {
        return keys.find(ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN), 0, key.length);
    }
}
