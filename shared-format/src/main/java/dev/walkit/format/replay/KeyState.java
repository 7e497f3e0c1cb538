package dev.walkit.format.replay;

/**
 * The replayed state of one key: its latest put (or the tombstone that deleted it). The value is not
 * kept: {@code valueOffset}/{@code valueLength} say where to read it back from the WAL file, so memory
 * grows with the number of keys, not with the log. A tool that keeps more per key (waldoctor: its history)
 * extends it and gives {@link KeyIndex} the constructor: no second map, no lookup per record.
 */
public class KeyState {
    final byte[] key;
    boolean live;
    long createRevision;
    long modRevision;
    long version;
    long lease;
    long valueOffset;
    int valueLength;
    long recordOffset;

    protected KeyState(byte[] key) {
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

    /** File offset of the record that set this state. */
    public long recordOffset() {
        return recordOffset;
    }
}
