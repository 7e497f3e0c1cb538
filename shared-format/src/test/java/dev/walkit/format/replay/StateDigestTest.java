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

    /** A value read: the bytes [offset, offset + length) of the file. */
    private record Read(long offset, int length) {
    }

    /** Digests {@code entries}, each value read as zeros; returns the reads made. */
    private static List<Read> reads(List<Entry> entries) {
        List<Read> reads = new ArrayList<>();
        StateDigest.Builder b = new StateDigest.Builder();
        for (Entry e : entries) b.add(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length());
        b.digest(7, (into, offset) -> {
            reads.add(new Read(offset, into.remaining()));
            into.position(into.limit());
        });
        return reads;
    }

    private static Entry at(long offset, int length) {
        return new Entry(("/k/" + offset).getBytes(StandardCharsets.UTF_8), 1, 2, 1, 0, offset, length);
    }

    @Test
    void valuesFarApartAreReadOneByOneInFileOrder() {
        List<Entry> s = new ArrayList<>();
        for (int i = 0; i < 5000; i++) s.add(at(i * 1_000_000L, 10 + i % 7));
        List<Entry> shuffled = new ArrayList<>(s);
        Collections.shuffle(shuffled, new Random(5));
        List<Read> reads = reads(shuffled);
        assertEquals(5000, reads.size());
        for (int i = 0; i < 5000; i++) assertEquals(new Read(s.get(i).offset(), s.get(i).length()), reads.get(i));
    }

    @Test
    void valuesLessThanAGapApartAreReadInOneRun() {
        // 100 and 120 end at 110 and 130: the next starts GAP - 1 after the first's end (same run) and GAP after the second's (a new one).
        long second = 110 + StateDigest.GAP - 1;
        long third = second + 10 + StateDigest.GAP;
        List<Read> reads = reads(List.of(at(third, 5), at(100, 10), at(second, 10)));
        assertEquals(List.of(new Read(100, (int) (second + 10 - 100)), new Read(third, 5)), reads);
    }

    @Test
    void aRunStopsAtItsLimitAndALargerValueIsReadByItself() {
        int run = StateDigest.RUN;
        List<Read> reads = reads(List.of(at(0, run - 10), at(run - 5, 10), at(2L * run, run + 1), at(3L * run + 1, 1)));
        assertEquals(List.of(new Read(0, run - 10), new Read(run - 5, 10), new Read(2L * run, run + 1), new Read(3L * run + 1, 1)), reads);
    }

    @Test
    void eachValueIsHashedFromItsOwnBytesInARun() {
        // Two values in one run (at 100 and 110), and the same two far apart (two runs): offsets are not hashed, values are.
        byte[] file = new byte[200];
        System.arraycopy("abcd".getBytes(StandardCharsets.UTF_8), 0, file, 100, 4);
        System.arraycopy("wxyz".getBytes(StandardCharsets.UTF_8), 0, file, 110, 4);
        List<Entry> near = List.of(at(100, 4), at(110, 4));
        String d = digest(near, 9, file);
        long farOffset = 114 + StateDigest.GAP;
        byte[] farFile = new byte[(int) farOffset + 4];
        System.arraycopy(file, 100, farFile, 100, 4);
        System.arraycopy(file, 110, farFile, (int) farOffset, 4);
        List<Entry> far = List.of(at(100, 4), new Entry(near.get(1).key(), 1, 2, 1, 0, farOffset, 4));
        assertEquals(2, reads(far).size());
        assertEquals(d, digest(far, 9, farFile), "the same values read in two runs");
        file[112] ^= 1;
        assertNotEquals(d, digest(near, 9, file), "the second value's third byte");
        file[112] ^= 1;
        file[99] ^= 1;
        file[104] ^= 1;
        file[109] ^= 1;
        file[114] ^= 1;
        assertEquals(d, digest(near, 9, file), "bytes around and between the values");
    }

    @Test
    void digestIsTheOneTheClassDescribes() throws Exception {
        // Computed here the plain way: each entry's SHA-256 (six big-endian longs, key, value), summed mod 2^256
        // as a number, then the SHA-256 of the sum (32 bytes, big-endian), the key count and the revision.
        List<Entry> s = state(700);
        BigInteger sum = BigInteger.ZERO;
        for (Entry e : s) {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            java.nio.ByteBuffer facts = java.nio.ByteBuffer.allocate(48).putLong(e.key().length).putLong(e.create()).putLong(e.mod())
                    .putLong(e.version()).putLong(e.lease()).putLong(e.length());
            md.update(facts.array());
            md.update(e.key());
            md.update(FILE, (int) e.offset(), e.length());
            sum = sum.add(new BigInteger(1, md.digest())).mod(MOD);
        }
        byte[] total = java.nio.ByteBuffer.allocate(48).put(Arrays.copyOfRange(sum.add(MOD).toByteArray(), 1, 33))
                .putLong(s.size()).putLong(1000).array();
        String expected = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(total));
        assertEquals(expected, digest(s, 1000));
    }

    @Test
    void aBuilderGivesTheSameDigestEachTime() {
        StateDigest.Builder b = new StateDigest.Builder();
        for (Entry e : state(50)) b.add(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length());
        StateDigest.Source file = (into, offset) -> into.put(FILE, (int) offset, into.remaining());
        assertEquals(b.digest(5, file), b.digest(5, file));
    }

    /** A live key and its facts; its value is the bytes at its offset in the file. */
    private record Entry(byte[] key, long create, long mod, long version, long lease, long offset, int length) {
    }

    private static String digest(List<Entry> entries, long revision, byte[] file) {
        StateDigest.Builder b = new StateDigest.Builder();
        for (Entry e : entries) b.add(e.key(), e.create(), e.mod(), e.version(), e.lease(), e.offset(), e.length());
        return b.digest(revision, (into, offset) -> into.put(file, (int) offset, into.remaining()));
    }

    /** A file with "value at OFFSET" at each entry's offset. */
    private static byte[] file(List<Entry> entries) {
        byte[] file = new byte[(int) entries.stream().mapToLong(e -> e.offset() + e.length()).max().orElse(0) + 16];
        for (Entry e : entries) {
            byte[] v = ("value at " + e.offset()).getBytes(StandardCharsets.UTF_8);
            System.arraycopy(v, 0, file, (int) e.offset(), v.length);
        }
        return file;
    }

    private static String digest(List<Entry> entries, long revision) {
        return digest(entries, revision, FILE);
    }

    private static List<Entry> state(int n) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int len = ("value at " + 100L * i).length();
            out.add(new Entry(("/k/" + i).getBytes(StandardCharsets.UTF_8), i + 1, 2L * i + 1, 3, i % 4, 100L * i, len));
        }
        return out;
    }

    private static final byte[] FILE = file(state(3000));

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
