package dev.walkit.format.bbolt;

/**
 * One of bbolt's two meta pages (pages 0 and 1), as read: the layout after the 16-byte page header is
 * magic u32, version u32, page_size u32, flags u32, the root bucket (root page u64, sequence u64),
 * freelist page u64, pgid (the high-water page) u64, txid u64, checksum u64: FNV-1a 64 of the 56 bytes
 * before it. Native byte order (little-endian on every platform etcd ships for).
 *
 * @param problem null when the page is a valid meta (magic, version, checksum), else why not
 */
public record BoltMeta(int slot, long offset, int magic, int version, int pageSize, long rootPage, long freelist,
                       long highWater, long txid, long checksum, long computedChecksum, String problem) {
    public static final int MAGIC = 0xED0CDAED;
    public static final int VERSION = 2;
    /** Where the meta starts in its page (after the page header). */
    static final int AT = 16;
    /** Bytes of the meta covered by its checksum. */
    static final int CHECKED = 56;
    /** Bytes of the meta with its checksum. */
    static final int LENGTH = 64;

    public boolean valid() {
        return problem == null;
    }
}
