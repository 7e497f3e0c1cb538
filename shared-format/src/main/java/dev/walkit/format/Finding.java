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
 * @param key      the key whose record breaks the rule (a rule of §5 or §6 judged on one record), or null
 */
public record Finding(DamageKind kind, long offset, long length, long revision, int records, String detail, byte[] key) {
    /** A finding about no one key (an incomplete transaction, a leftover file, a count). */
    public Finding(DamageKind kind, long offset, long length, long revision, int records, String detail) {
        this(kind, offset, length, revision, records, detail, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Finding f && kind == f.kind && offset == f.offset && length == f.length && revision == f.revision
                && records == f.records && java.util.Objects.equals(detail, f.detail) && java.util.Arrays.equals(key, f.key);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(kind, offset, length, revision, records, detail, java.util.Arrays.hashCode(key));
    }

    @Override
    public String toString() {
        return "Finding[" + kind + " at " + offset + "+" + length + ", revision " + revision + ", " + records + " dropped, " + detail
                + (key == null ? "" : ", key " + KeyQuote.quote(key)) + "]";
    }
}
