package dev.walkit.format.pass;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PackedLongsTest {
    @Test
    void valuesComeBackAcrossChunksWhetherCloseOrFarApart() {
        PackedLongs p = new PackedLongs();
        int n = PackedLongs.CHUNK * 2 + 5000;
        java.util.function.IntToLongFunction v = i -> {
            if (i < 3000) return 5_000_000_000L + 37L * i;                      // offsets past 4 GiB, close together
            if (i == 3000) return -7;                                            // a snapshot revision far below
            if (i < PackedLongs.CHUNK) return 5_000_000_000L + 37L * i;          // the first chunk is wide from 3000 on
            if (i == PackedLongs.CHUNK + 10) return Long.MAX_VALUE;              // a jump as far as a long goes
            return 9_000_000_000L - i;                                          // decreasing
        };
        for (int i = 0; i < n; i++) p.add(v.applyAsLong(i));
        assertEquals(n, p.size());
        for (int i = 0; i < n; i++) assertEquals(v.applyAsLong(i), p.get(i), "value " + i);
    }

    @Test
    void aRecordsLinkCarriesItsDeleteFlagAndItsPredecessor() {
        AppliedRecords a = new AppliedRecords();
        int first = a.add(100, 7, false, -1);
        int second = a.add(200, 8, true, first);
        int third = a.add(300, 9, false, second);
        assertEquals(-1, a.previous(first));
        assertEquals(first, a.previous(second));
        assertEquals(second, a.previous(third));
        assertFalse(a.isDelete(first));
        assertTrue(a.isDelete(second));
        assertFalse(a.isDelete(third));
        assertEquals(8, a.revision(second));
        assertEquals(300, a.offset(third));
        a.transactionApplied(2);
        assertEquals(1, a.transactionCount());
        assertEquals(second, a.transactionStart(0));
    }
}
