package dev.walkit.format.bbolt;

/**
 * Damage found in a bbolt file, as data: the page it is on (-1: not a page), that page's file offset (-1: not
 * one place, as a bucket that is missing), and what is wrong. The reader goes on past it where the file allows (a bad page's subtree is skipped; the
 * other meta page is used when one is bad).
 */
public record BoltDamage(long page, long offset, String detail) {
    @Override
    public String toString() {
        return (page >= 0 ? "page " + page + " at offset " + offset + ": " : offset >= 0 ? "offset " + offset + ": " : "") + detail;
    }
}
