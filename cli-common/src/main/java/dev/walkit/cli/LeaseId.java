package dev.walkit.cli;

/**
 * A lease ID as etcdctl prints and reads it: 16 hex digits ({@code etcdctl lease grant}, {@code lease list},
 * {@code lease timetolive}), and any ID typed is hex, digits only or not ({@code 0x} optional), as
 * {@code etcdctl lease timetolive 7000} reads 0x7000. Every tool prints a lease ID this way first.
 */
public final class LeaseId {
    private LeaseId() {
    }

    /** {@code 0000000000001b58}: the ID as etcdctl prints it. */
    public static String text(long id) {
        return String.format("%016x", id);
    }

    /** The ID typed: hex, {@code 0x} optional; a {@link NumberFormatException} when it is not one. */
    public static long parse(String s) {
        String t = s.strip();
        if (t.startsWith("0x") || t.startsWith("0X")) t = t.substring(2);
        if (t.isEmpty() || t.length() > 16) throw new NumberFormatException("not a lease ID: " + s);
        return Long.parseUnsignedLong(t, 16);
    }
}
