package dev.walkit.migrate;

/**
 * One key's change in a source transaction, as a follow applies it to the target.
 *
 * @param value     the key's new value; null when the change deletes the key
 * @param prev      the key's value in the source just before (what the target must hold for the change to apply);
 *                  null when the key did not exist
 * @param prevKnown false when the source cannot say what the key held before (etcd's history compacted under the
 *                  watch): the change is applied without comparing
 * @param lease     as {@link SourceKey#lease()}: a kine TTL or a lease ID; 0 for none
 */
public record Change(byte[] key, byte[] value, byte[] prev, boolean prevKnown, long lease) {
    public boolean delete() {
        return value == null;
    }

    /** The bytes it puts in a follow transaction: its key, its value and the previous value it compares. */
    public long bytes() {
        return key.length + (value == null ? 0 : value.length) + (prev == null ? 0 : prev.length);
    }
}
