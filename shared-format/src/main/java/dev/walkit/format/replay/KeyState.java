package dev.walkit.format.replay;

/**
 * The replayed state of one key: its latest put (or the tombstone that deleted it). The value is not
 * kept: {@code valueOffset}/{@code valueLength} say where to read it back from the WAL file, so memory
 * grows with the number of keys, not with the log.
 */
public final class KeyState {
    final byte[] key;
    boolean live;
    long createRevision;
    long modRevision;
    long version;
    long lease;
    long valueOffset;
    int valueLength;
    long recordOffset;
    private Object attachment;

    KeyState(byte[] key) {
        this.key = key;
    }

    public byte[] key() {
        return key;
    }

    /** False for a tombstone: the key was deleted at {@link #modRevision()}. */
    public boolean live() {
        return live;
    }

    public long createRevision() {
        return createRevision;
    }

    public long modRevision() {
        return modRevision;
    }

    public long version() {
        return version;
    }

    public long lease() {
        return lease;
    }

    public long valueOffset() {
        return valueOffset;
    }

    public int valueLength() {
        return valueLength;
    }

    /** Whatever a tool keeps per key (waldoctor: its history), so it needs no map of its own. */
    public Object attachment() {
        return attachment;
    }

    public void attach(Object o) {
        this.attachment = o;
    }

    /** File offset of the record that set this state. */
    public long recordOffset() {
        return recordOffset;
    }
}
