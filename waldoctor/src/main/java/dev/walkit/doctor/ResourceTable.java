package dev.walkit.doctor;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts per Kubernetes resource, looked up by a key's bytes: {@code /registry/pods/…} → pods,
 * {@code /registry/example.com/widgets/…} → example.com/widgets (a group has a dot), anything else
 * (other). The name's bytes are hashed and compared where they lie in the key, so a million keys make a
 * string per resource, not one per key.
 */
final class ResourceTable {
    static final String OTHER = "(other)";
    private static final byte[] REGISTRY = "/registry/".getBytes(StandardCharsets.US_ASCII);

    private static final class Entry {
        final byte[] name;
        final int hash;
        final long[] counts = new long[3];

        Entry(byte[] name, int hash) {
            this.name = name;
            this.hash = hash;
        }
    }

    private Entry[] table = new Entry[64];
    private int size;
    private final long[] other = new long[3];
    private boolean otherSeen;

    /** The counts of {@code key}'s resource (created at zero on first sight). */
    long[] counts(byte[] key) {
        long range = range(key);
        if (range < 0) {
            otherSeen = true;
            return other;
        }
        int from = (int) (range >>> 32);
        int to = (int) range;
        int h = 1;
        for (int i = from; i < to; i++) h = 31 * h + key[i];
        int mask = table.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) {
                e = new Entry(Arrays.copyOfRange(key, from, to), h);
                table[i] = e;
                if (++size * 2 > table.length) grow();
                return e.counts;
            }
            if (e.hash == h && Arrays.equals(e.name, 0, e.name.length, key, from, to)) return e.counts;
        }
    }

    private void grow() {
        Entry[] old = table;
        table = new Entry[old.length * 2];
        int mask = table.length - 1;
        for (Entry e : old) {
            if (e == null) continue;
            int i = e.hash & mask;
            while (table[i] != null) i = (i + 1) & mask;
            table[i] = e;
        }
    }

    /** Every resource seen with its counts, by name. */
    Map<String, long[]> sorted() {
        Map<String, long[]> out = new TreeMap<>();
        for (Entry e : table) {
            if (e != null) out.put(new String(e.name, StandardCharsets.UTF_8), e.counts);
        }
        if (otherSeen) out.put(OTHER, other);
        return out;
    }

    /** The resource's name of {@code key} by the rules above. */
    static String resourceOf(byte[] key) {
        long range = range(key);
        return range < 0 ? OTHER : new String(key, (int) (range >>> 32), (int) range - (int) (range >>> 32), StandardCharsets.UTF_8);
    }

    /** Where the resource's name lies in {@code key}: from in the high int, to in the low; -1 for (other). */
    private static long range(byte[] key) {
        int r = REGISTRY.length;
        if (key.length < r || !Arrays.equals(key, 0, r, REGISTRY, 0, r)) return -1;
        int end = indexOf(key, (byte) '/', r);
        if (end < 0) end = key.length;
        if (end == r) return -1;
        int dot = indexOf(key, (byte) '.', r);
        if (dot >= 0 && dot < end && end < key.length) {
            int next = indexOf(key, (byte) '/', end + 1);
            end = next < 0 ? key.length : next;
        }
        return ((long) r << 32) | end;
    }

    private static int indexOf(byte[] a, byte b, int from) {
        for (int i = from; i < a.length; i++) if (a[i] == b) return i;
        return -1;
    }
}
