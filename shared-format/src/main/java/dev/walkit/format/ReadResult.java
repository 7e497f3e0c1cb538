package dev.walkit.format;

/**
 * What one step of {@link WalReader} yields: a valid record ({@link RecordView}, a flyweight valid
 * until the next step) or a damaged byte span ({@link DamageSpan}). The end of the log is
 * {@code null}. Damage is data, not an exception.
 */
public sealed interface ReadResult permits RecordView, DamageSpan {
    /** File offset of the first byte. */
    long offset();

    /** Number of bytes, so that every byte of the file is in exactly one result. */
    long length();
}
