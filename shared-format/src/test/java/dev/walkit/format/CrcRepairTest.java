package dev.walkit.format;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The one damaged byte of a record named from its CRC alone: every position, the stored CRC's bytes, and no answer past one byte. */
class CrcRepairTest {
    static final byte[] KEY = "/registry/pods/default/web-0".getBytes(StandardCharsets.UTF_8);

    static byte[] record() {
        return new RecordEncoder().encode(KeyValue.put(KEY, 7, 9, 2, "{\"spec\":{}}".getBytes(StandardCharsets.UTF_8), 0));
    }

    static int recLen(byte[] rec) {
        return LogBuilder.le(rec).getInt(RecordLayout.REC_LEN_OFFSET);
    }

    @Test
    void aBitFlippedInTheKeyIsNamedWithItsOriginalValue() {
        byte[] rec = record();
        int at = RecordLayout.KV_OFFSET + RecordLayout.CANONICAL_KEY_OFFSET + 10; // KEY[10], the 'p' of "pods"
        rec[at] ^= 0x20;
        CrcRepair.Repair r = CrcRepair.singleByte(LogBuilder.le(rec), 0, recLen(rec), CrcRange.STANDARD);
        assertEquals(new CrcRepair.Repair(at, (byte) 'p', (byte) ('p' ^ 0x20)), r);
        assertArrayEquals(record(), CrcRepair.repaired(rec, r));
    }

    @Test
    void everyPositionAndEveryErrorValueOfOneByteIsFound() {
        byte[] clean = record();
        Random rnd = new Random(3);
        for (int at = 0; at < clean.length; at++) {
            byte[] rec = clean.clone();
            if (at >= RecordLayout.REC_LEN_OFFSET && at < RecordLayout.HEADER_LENGTH) continue; // rec_len: another framing
            int e = 1 + rnd.nextInt(255);
            rec[at] ^= (byte) e;
            CrcRepair.Repair r = CrcRepair.singleByte(LogBuilder.le(rec), 0, recLen(rec), CrcRange.STANDARD);
            assertNotNull(r, "byte " + at);
            assertEquals(at, r.position(), "byte " + at);
            assertEquals(clean[at], r.original(), "byte " + at);
        }
    }

    @Test
    void aByteOfTheStoredCrcIsNamedToo() {
        byte[] rec = record();
        int at = rec.length - 2;
        byte was = rec[at];
        rec[at] ^= (byte) 0x81;
        CrcRepair.Repair r = CrcRepair.singleByte(LogBuilder.le(rec), 0, recLen(rec), CrcRange.STANDARD);
        assertEquals(new CrcRepair.Repair(at, was, rec[at]), r);
    }

    @Test
    void noAnswerForAMatchingCrcOrDamageWiderThanAByte() {
        byte[] rec = record();
        assertNull(CrcRepair.singleByte(LogBuilder.le(rec), 0, recLen(rec), CrcRange.STANDARD));
        Random rnd = new Random(4);
        for (int t = 0; t < 2000; t++) {
            byte[] two = record();
            int a = RecordLayout.KV_OFFSET + rnd.nextInt(two.length - RecordLayout.KV_OFFSET - 4);
            int b = a + 1 + rnd.nextInt(two.length - a - 1);
            two[a] ^= (byte) (1 + rnd.nextInt(255));
            two[b] ^= (byte) (1 + rnd.nextInt(255));
            assertNull(CrcRepair.singleByte(LogBuilder.le(two), 0, recLen(two), CrcRange.STANDARD), "bytes " + a + " and " + b);
        }
    }
}
