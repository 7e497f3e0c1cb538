package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.RecordLayout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction's first record whose header is damaged while its frame stays exact (it ends where valid records
 * resume): whichever header field is off (a reserved flag bit, key_offset or mod_rev_offset out of range), the span
 * carries the record's claim (TXN_CONT, its revision: read at mod_rev_offset, or decoded from kv_bytes when that offset
 * is the damaged field), and the rest of its transaction is dropped with it: a transaction that damage interrupts never
 * committed (§5). Found by differential fuzzing against an independent reading of the contract.
 */
class DamagedFirstRecordClaimTest {
    @TempDir
    Path dir;

    static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"reserved-flag", "key-offset", "mod-rev-offset"})
    void theRestOfTheTransactionIsDroppedWithItsFirstRecord(String field) throws Exception {
        LogBuilder b = LogBuilder.puts(3);
        byte[] v = key("{}");
        b.add(KeyValue.put(key("/t/a"), 4, 4, 1, v, 0).withFlags(Flags.TXN_CONT)); // record 3: the first of revision 4's three
        b.add(KeyValue.put(key("/t/b"), 4, 4, 1, v, 0).withFlags(Flags.TXN_CONT));
        b.add(KeyValue.put(key("/t/c"), 4, 4, 1, v, 0));
        b.add(KeyValue.put(key("/t/d"), 5, 5, 1, v, 0));
        byte[] log = b.bytes();
        int first = (int) b.offset(3);
        switch (field) {
            case "reserved-flag" -> log[first + RecordLayout.FLAGS_OFFSET] |= 0x40;
            case "key-offset" -> LogBuilder.le(log).putShort(first + RecordLayout.KEY_OFFSET_OFFSET, (short) 0xFFFF);
            default -> LogBuilder.le(log).putShort(first + RecordLayout.MOD_REV_OFFSET_OFFSET, (short) 0xFFFF);
        }
        Replay.Result r = Replay.run(LogBuilder.write(dir, "wal", log));
        Replayer s = r.state();
        assertEquals(1, s.damage().size(), s.damage().toString());
        DamageSpan d = s.damage().get(0);
        assertEquals(DamageKind.BAD_HEADER, d.kind(), d.toString());
        assertEquals(first, d.offset());
        assertEquals(b.length(3), d.length(), "the frame is exact");
        assertEquals(4, d.claimedRevision(), "its claim: revision 4");
        assertTrue(d.claimedTxnCont(), "its claim: TXN_CONT");
        List<Finding> incomplete = s.findings().stream().filter(f -> f.kind() == DamageKind.INCOMPLETE_TRANSACTION).toList();
        assertEquals(1, incomplete.size(), s.findings().toString());
        assertEquals(4, incomplete.get(0).revision());
        assertEquals(2, incomplete.get(0).records(), "the two records after the damaged one, dropped");
        assertNull(s.keys().get(key("/t/b")), "never applied: the transaction did not commit");
        assertNull(s.keys().get(key("/t/c")), "its closing record neither");
        assertTrue(s.keys().get(key("/t/d")).live(), "what follows is applied");
        assertEquals(5, s.revision());
    }
}
