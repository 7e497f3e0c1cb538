package dev.walkit.format;

/**
 * How a {@link WalReader} reads.
 *
 * @param level     {@link Level#FRAME}: header sanity and CRC; {@link Level#DECODE}: also the
 *                  KeyValue decode and header/payload consistency
 * @param maxRecLen the largest rec_len taken as plausible (docs/format.md §3; default 64 MiB)
 * @param acceptCrc a buggy CRC range (§7 crc range bug) whose records are accepted as valid, or null
 */
public record ReaderOptions(Level level, int maxRecLen, CrcRange acceptCrc) {

    public enum Level { FRAME, DECODE }

    public ReaderOptions {
        if (maxRecLen < 16) throw new IllegalArgumentException("maxRecLen too small: " + maxRecLen);
        if (acceptCrc == CrcRange.STANDARD) acceptCrc = null;
    }

    public static ReaderOptions defaults() {
        return new ReaderOptions(Level.DECODE, RecordLayout.DEFAULT_MAX_REC_LEN, null);
    }

    public static ReaderOptions frame() {
        return new ReaderOptions(Level.FRAME, RecordLayout.DEFAULT_MAX_REC_LEN, null);
    }

    public ReaderOptions withLevel(Level l) {
        return new ReaderOptions(l, maxRecLen, acceptCrc);
    }

    public ReaderOptions withAcceptCrc(CrcRange r) {
        return new ReaderOptions(level, maxRecLen, r);
    }

    public ReaderOptions withMaxRecLen(int max) {
        return new ReaderOptions(level, max, acceptCrc);
    }
}
