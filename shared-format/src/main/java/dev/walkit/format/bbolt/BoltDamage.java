package dev.walkit.format.bbolt;

/**
 * Damage found in a bbolt file, as data: the page it is on (-1: not a page), that page's file offset, and
 * what is wrong. The reader goes on past it where the file allows (a bad page's subtree is skipped; the
 * other meta page is used when one is bad).
 */
public record BoltDamage(long page, long offset, String detail) {
    @Override
    public String toString() {
        return (page >= 0 ? "page " + page + " at offset " + offset : "offset " + offset) + ": " + detail;
    }
}
