package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key table of the light replay: keys by their bytes, facts kept beside them, across growth and pages. */
class KeyTableTest {
    /** A little-endian buffer with the key at offset 3 (keys are looked up in place in a read buffer, not at 0). */
    static ByteBuffer at3(byte[] key) {
        ByteBuffer b = ByteBuffer.allocate(key.length + 10).order(ByteOrder.LITTLE_ENDIAN);
        b.put(3, key);
        return b;
    }

    @Test
    void theHashOfAnArrayIsThatOfTheSameBytesInABuffer() {
        // KeyIndex hashes keys held in arrays, KeyTable keys in a read buffer: one hash, every length's tail.
        java.util.Random r = new java.util.Random(11);
        for (int len = 0; len <= 40; len++) {
            for (int n = 0; n < 50; n++) {
                byte[] k = new byte[len];
                r.nextBytes(k);
                assertEquals(KeyTable.hash(at3(k), 3, len), KeyTable.hash(k), "length " + len);
            }
        }
    }

    static int find(KeyTable t, byte[] key) {
        return t.find(at3(key), 3, key.length);
    }

    /**
     * Key {@code i}, unique: lengths 0 to 12 first (one key each, told apart by length: no full 8-byte word,
     * or one and a tail), then "/registry/k/i" padded to {@code i % 101} bytes when that is longer, so that
     * keys end at every offset of an 8-byte word.
     */
    static byte[] key(int i) {
        if (i < 13) return "/registry/ab".substring(0, i).getBytes(StandardCharsets.US_ASCII);
        StringBuilder b = new StringBuilder("/registry/k/" + i);
        while (b.length() < i % 101) b.append((char) ('a' + (b.length() % 26)));
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void keysAreFoundAgainWithTheirFactsAcrossGrowthAndPages() {
        KeyTable t = new KeyTable(false, false);
        int n = 200_000;
        int[] refs = new int[n];
        for (int i = 0; i < n; i++) {
            refs[i] = find(t, key(i));
            assertTrue(t.inserted(), "key " + i);
            assertFalse(t.live(refs[i]));
            t.put(refs[i], i, i + 1L);
        }
        assertEquals(n, t.size());
        assertEquals(n, t.liveCount());
        for (int i = 0; i < n; i++) {
            assertEquals(refs[i], find(t, key(i)), "key " + i);
            assertFalse(t.inserted());
            assertTrue(t.live(refs[i]));
            assertEquals(i, t.createRevision(refs[i]));
            assertEquals(i + 1L, t.version(refs[i]));
        }
        for (int i = 0; i < n; i += 2) t.delete(refs[i]);
        t.delete(refs[0]); // twice: counted once
        assertEquals(n / 2, t.liveCount());
        assertFalse(t.live(refs[0]));
        assertTrue(t.live(refs[1]));
        // Put again after a delete: live again, facts replaced.
        t.put(refs[0], 7, 1);
        assertEquals(n / 2 + 1, t.liveCount());
        assertEquals(7, t.createRevision(refs[0]));
        // Entries in the order inserted, each once.
        int i = 0;
        for (int r = t.first(); r >= 0; r = t.next(r), i++) assertEquals(refs[i], r, "entry " + i);
        assertEquals(n, i);
    }

    @Test
    void keysWithTheSameHashAreTwoKeys() {
        // 19-byte keys that differ only in their last 3 bytes, past the last full 8-byte word: the part
        // compared apart from the words.
        Map<Integer, byte[]> byHash = new HashMap<>();
        byte[][] pair = null;
        for (int i = 0; pair == null; i++) {
            byte[] k = "/registry/pods/n...".getBytes(StandardCharsets.US_ASCII);
            k[16] = (byte) i;
            k[17] = (byte) (i >>> 8);
            k[18] = (byte) (i >>> 16);
            byte[] other = byHash.putIfAbsent(KeyTable.hash(ByteBuffer.wrap(k).order(ByteOrder.LITTLE_ENDIAN), 0, k.length), k);
            if (other != null) pair = new byte[][] {other, k};
            assertTrue(i < 1 << 24, "no two keys of the same hash found");
        }
        KeyTable t = new KeyTable(false, false);
        int a = find(t, pair[0]);
        t.put(a, 1, 1);
        int b = find(t, pair[1]);
        assertTrue(t.inserted(), new String(pair[1], StandardCharsets.US_ASCII) + " is not " + new String(pair[0], StandardCharsets.US_ASCII));
        assertNotEquals(a, b);
        assertFalse(t.live(b));
        assertEquals(a, find(t, pair[0]));
        assertEquals(b, find(t, pair[1]));
        // And across tables: the other key of the same hash is not this one.
        KeyTable only0 = new KeyTable(false, false);
        find(only0, pair[0]);
        KeyTable only1 = new KeyTable(true, false);
        int r1 = find(only1, pair[1]);
        assertEquals(-1, only0.lookup(only1, r1));
        assertEquals(b, t.lookup(only1, r1), "found as the key of its own bytes, not the other");
    }

    @Test
    void aKeyLargerThanAPageHasAPageOfItsOwn() {
        KeyTable t = new KeyTable(true, true);
        byte[] huge = new byte[5 << 20]; // above the 4 MiB page
        for (int i = 0; i < huge.length; i++) huge[i] = (byte) (i * 31);
        byte[] large = new byte[100 << 10]; // above the first page (64 KiB), as the very first key: that page stays empty
        large[large.length - 1] = 1;
        List<byte[]> keys = new ArrayList<>(List.of(large, key(5), huge, key(6), huge.clone()));
        keys.get(4)[huge.length - 1] ^= 1; // differs from huge in its last byte only
        List<Integer> refs = new ArrayList<>();
        for (byte[] k : keys) {
            refs.add(find(t, k));
            assertTrue(t.inserted());
        }
        for (int i = 0; i < keys.size(); i++) {
            t.put(refs.get(i), 100 + i, 1);
            t.value(refs.get(i), 200 + i, 300 + i, 400 + i, 500 + i);
            t.first(refs.get(i), i % 2 == 0, 600 + i, 700 + i, 800 + i);
        }
        for (int i = 0; i < keys.size(); i++) {
            int r = find(t, keys.get(i));
            assertEquals(refs.get(i), r);
            assertEquals(100 + i, t.createRevision(r));
            assertEquals(i % 2 == 0, t.firstDelete(r));
            assertEquals(600 + i, t.firstRevision(r));
            assertEquals(700 + i, t.firstCreateRevision(r));
            assertEquals(800 + i, t.firstVersion(r));
        }
        List<Integer> walked = new ArrayList<>();
        for (int r = t.first(); r >= 0; r = t.next(r)) walked.add(r);
        assertEquals(refs, walked);
    }

    @Test
    void lookupFindsAnotherTablesKeyWhateverItsLayout() {
        KeyTable a = new KeyTable(false, false);
        KeyTable b = new KeyTable(true, true);
        int n = 50_000;
        for (int i = 0; i < n; i++) find(a, key(i));
        List<Integer> inB = new ArrayList<>();
        for (int i = n / 2; i < n + n / 2; i++) inB.add(find(b, key(i)));
        for (int j = 0; j < inB.size(); j++) {
            int i = n / 2 + j;
            int r = a.lookup(b, inB.get(j));
            if (i < n) assertEquals(find(a, key(i)), r, "key " + i);
            else assertEquals(-1, r, "key " + i);
        }
        for (int i = 0; i < n; i++) {
            int r = b.lookup(a, find(a, key(i)));
            if (i < n / 2) assertEquals(-1, r, "key " + i);
            else assertEquals(inB.get(i - n / 2), r, "key " + i);
        }
    }

    @Test
    void compareIsUnsignedByteOrderThenLength() {
        KeyTable t = new KeyTable(false, false);
        int r = find(t, new byte[] {'a', (byte) 0x80});
        assertTrue(t.compare(r, at3(new byte[] {'a', 0x7F}), 3, 2) > 0, "0x80 is above 0x7F unsigned");
        assertTrue(t.compare(r, at3(new byte[] {'a', (byte) 0x81}), 3, 2) < 0);
        assertTrue(t.compare(r, at3(new byte[] {'a', (byte) 0x80, 0}), 3, 3) < 0, "a prefix is first");
        assertTrue(t.compare(r, at3(new byte[] {'a'}), 3, 1) > 0);
        assertEquals(0, t.compare(r, at3(new byte[] {'a', (byte) 0x80}), 3, 2));
    }
}
