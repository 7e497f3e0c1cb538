package dev.walkit.format;

/**
 * A finding of grouping or replay (docs/format.md §5, §6, §7): not a byte span but a rule broken,
 * with the offset where it shows and the revision(s) involved.
 *
 * @param kind     what rule
 * @param offset   file offset of the first record concerned
 * @param length   bytes of the records concerned (0 when none)
 * @param revision the revision concerned, or -1
 * @param records  records dropped because of it (0 when only reported)
 * @param detail   evidence in words
 */
public record Finding(DamageKind kind, long offset, long length, long revision, int records, String detail) {
}
