package dev.walkit.format.replay;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The state digest: the same for the same state in any key order, different when any fact differs. */
class StateDigestTest {
    private static final BigInteger MOD = BigInteger.ONE.shiftLeft(256);

    @Property
    void addIsAdditionMod2To256(@ForAll @Size(max = 6) List<@Size(value = 32) byte[]> hashes) {
        long[] sum = new long[4];
        BigInteger expected = BigInteger.ZERO;
        for (byte[] h : hashes) {
            StateDigest.add(sum, h);
            expected = expected.add(new BigInteger(1, h)).mod(MOD);
        }
        BigInteger got = BigInteger.ZERO;
        for (int j = 3; j >= 0; j--) got = got.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(sum[j])));
        assertEquals(expected, got);
    }

    @Test
    void carriesRunThroughEveryLimb() {
        long[] sum = {-1L, -1L, -1L, 0};
        byte[] one = new byte[32];
        one[31] = 1;
        StateDigest.add(sum, one);
        assertEquals(List.of(0L, 0L, 0L, 1L), List.of(sum[0], sum[1], sum[2], sum[3]));
    }

    @Property
    void sortByOffsetOrdersByOffsetAndKeepsEveryEntry(@ForAll("offsets") long[] offsets) {
        long[] packed = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) packed[i] = (offsets[i] << StateDigest.INDEX_BITS) | i;
        long[] expected = packed.clone();
        Arrays.sort(expected);
        StateDigest.sortByOffset(packed);
        assertArrayEquals(expected, packed);
    }

    @Provide
    Arbitrary<long[]> offsets() {
        // Small, mid-sized and large offsets, up to the 2^39 the packing allows, so that each of the three passes
        // sorts (or is skipped when all share its digit).
        Arbitrary<Long> offset = Arbitraries.oneOf(Arbitraries.longs().between(0, 1L << 13),
                Arbitraries.longs().between(0, 1L << 26), Arbitraries.longs().between(0, (1L << StateDigest.OFFSET_BITS) - 1));
        return offset.array(long[].class).ofMaxSize(2000);
    }

    @Test
    void valuesAreReadInFileOrder() {
        List<Entry> s = new ArrayList<>(state(5000));
        Collections.shuffle(s, new Random(5));
        long[] last = {-1};
        int[] reads = {0};
        StateDigest.Builder b = new StateDigest.Builder();
        for (Entry e : s) b.add(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset() * 1_000_000L, e.length());
        b.digest(7, (offset, length) -> {
            assertTrue(offset > last[0], "value at " + offset + " read after " + last[0]);
            last[0] = offset;
            reads[0]++;
            return new byte[length];
        });
        assertEquals(5000, reads[0]);
    }

    /** A live key and its facts; its value is read back as "value at OFFSET". */
    private record Entry(byte[] key, long create, long mod, long version, long lease, long offset, int length) {
    }

    private static String digest(List<Entry> entries, long revision) {
        StateDigest.Builder b = new StateDigest.Builder();
        for (Entry e : entries) b.add(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length());
        return b.digest(revision, (offset, length) -> ("value at " + offset).getBytes(StandardCharsets.UTF_8));
    }

    private static List<Entry> state(int n) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int len = ("value at " + 100L * i).length();
            out.add(new Entry(("/k/" + i).getBytes(StandardCharsets.UTF_8), i + 1, 2L * i + 1, 3, i % 4, 100L * i, len));
        }
        return out;
    }

    @Test
    void keyOrderDoesNotMatterButEveryFactDoes() {
        List<Entry> s = state(3000);
        String d = digest(s, 1000);
        List<Entry> shuffled = new ArrayList<>(s);
        Collections.shuffle(shuffled, new Random(3));
        assertEquals(d, digest(shuffled, 1000));
        assertNotEquals(d, digest(s, 1001), "revision");
        assertNotEquals(d, digest(s.subList(0, 499), 1000), "a key less");
        Entry e = s.get(17);
        for (Entry changed : List.of(
                new Entry("/k/x".getBytes(StandardCharsets.UTF_8), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length()),
                new Entry(e.key(), e.create() + 1, e.mod(), e.version(), e.lease(), e.offset(), e.length()),
                new Entry(e.key(), e.create(), e.mod() + 1, e.version(), e.lease(), e.offset(), e.length()),
                new Entry(e.key(), e.create(), e.mod(), e.version() + 1, e.lease(), e.offset(), e.length()),
                new Entry(e.key(), e.create(), e.mod(), e.version(), e.lease() + 1, e.offset(), e.length()),
                new Entry(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset() + 1, e.length()),
                new Entry(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length() - 1))) {
            List<Entry> t = new ArrayList<>(s);
            t.set(17, changed);
            assertNotEquals(d, digest(t, 1000), changed.toString());
        }
    }
}
