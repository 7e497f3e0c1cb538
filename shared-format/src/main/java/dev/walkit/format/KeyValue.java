package dev.walkit.format;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A record's fields as values that outlive a read: flags plus the KeyValue of docs/format.md §3.
 * Also the input of {@link RecordEncoder}.
 */
public record KeyValue(int flags, byte[] key, long createRevision, long modRevision, long version, byte[] value, long lease) {

    public static KeyValue put(byte[] key, long createRevision, long modRevision, long version, byte[] value, long lease) {
        return new KeyValue(0, key, createRevision, modRevision, version, value, lease);
    }

    public static KeyValue delete(byte[] key, long modRevision) {
        return new KeyValue(Flags.DELETE, key, 0, modRevision, 0, new byte[0], 0);
    }

    public KeyValue withFlags(int newFlags) {
        return new KeyValue(newFlags, key, createRevision, modRevision, version, value, lease);
    }

    public KeyValue withVersion(long newVersion) {
        return new KeyValue(flags, key, createRevision, modRevision, newVersion, value, lease);
    }

    public boolean isDelete() {
        return Flags.isDelete(flags);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValue k && flags == k.flags && createRevision == k.createRevision && modRevision == k.modRevision
                && version == k.version && lease == k.lease && Arrays.equals(key, k.key) && Arrays.equals(value, k.value);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(modRevision);
    }

    @Override
    public String toString() {
        return "KeyValue[flags=" + Flags.describe(flags) + ", key=" + HexFormat.of().formatHex(key) + ", create=" + createRevision
                + ", mod=" + modRevision + ", version=" + version + ", value=" + value.length + "B, lease=" + lease + "]";
    }
}
