package dev.walkit.format.policy;

import dev.walkit.format.LogBuilder;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each policy's replay and decision, on a log with a torn tail and on one damaged in the middle. */
class RecoveryPolicyTest {
    @TempDir
    Path dir;

    private static final RecoveryPolicy SALVAGE = new Salvage();
    private static final RecoveryPolicy POINT_IN_TIME = new PointInTime();
    private static final RecoveryPolicy TOLERATE_TAIL = new TolerateTail();
    private static final RecoveryPolicy ABSOLUTE = new Absolute();

    private Replayer replay(byte[] log, RecoveryPolicy p) throws Exception {
        Path wal = LogBuilder.write(dir, "wal-" + p.label(), log);
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            return Replay.run(f, ro, p.replayOptions(Long.MAX_VALUE), null).state();
        }
    }

    @Test
    void everyPolicyIsFoundByItsLabelAndSalvageComesFirst() {
        // Derived from ALL: a new policy is one file and a line in ALL, and this test goes through it too.
        assertEquals("salvage", RecoveryPolicy.ALL.get(0).label(), "the default first");
        assertEquals(RecoveryPolicy.ALL.size(), new java.util.HashSet<>(RecoveryPolicy.labels()).size(), "labels are unique");
        for (RecoveryPolicy p : RecoveryPolicy.ALL) {
            assertEquals(p, RecoveryPolicy.fromLabel(p.label()));
            assertTrue(p.label().matches("[a-z]+(-[a-z]+)*") && !p.summary().isBlank(), p.label() + ": " + p.summary());
            assertTrue(RecoveryPolicy.describeAll().contains(p.label() + (p == RecoveryPolicy.ALL.get(0) ? " (default) " : " ") + p.summary()), RecoveryPolicy.describeAll());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RecoveryPolicy.fromLabel("POINT_IN_TIME"));
        assertEquals("'POINT_IN_TIME' is not a policy (" + String.join(", ", RecoveryPolicy.labels()) + ")", e.getMessage());
    }

    @Test
    void onlyPointInTimeStopsAtTheFirstDamage() {
        for (RecoveryPolicy p : RecoveryPolicy.ALL) {
            Replayer.Options o = p.replayOptions(7);
            assertEquals(7, o.toRevision());
            assertFalse(o.deriveVersions());
            assertEquals(p instanceof PointInTime, o.stopAtFirstDamage(), p.label());
        }
    }

    @Test
    void aTornTailIsWrittenByAllButAbsolute() throws Exception {
        LogBuilder b = LogBuilder.puts(5);
        byte[] torn = Arrays.copyOf(b.bytes(), (int) b.offset(4) + 10);
        for (RecoveryPolicy p : List.of(SALVAGE, POINT_IN_TIME, TOLERATE_TAIL)) {
            Replayer s = replay(torn, p);
            assertNull(p.refusal(s, torn.length), p.label());
            assertEquals(4, s.transactions(), p.label());
        }
        assertEquals("policy absolute: 1 damaged span(s) and 0 finding(s); nothing written", ABSOLUTE.refusal(replay(torn, ABSOLUTE), torn.length));
    }

    @Test
    void damageInTheMiddleIsRefusedByTolerateTailAndCutByPointInTime() throws Exception {
        LogBuilder b = LogBuilder.puts(5);
        byte[] log = b.bytes();
        int at = (int) b.offset(2) + b.length(2) - 1; // the last byte of record 2's CRC
        log[at] ^= 0x01;
        Replayer salvage = replay(log, SALVAGE);
        assertNull(SALVAGE.refusal(salvage, log.length));
        assertEquals(4, salvage.transactions(), "salvage keeps the records after the damage");
        Replayer pit = replay(log, POINT_IN_TIME);
        assertNull(POINT_IN_TIME.refusal(pit, log.length));
        assertEquals(2, pit.transactions(), "point-in-time keeps what came before");
        String why = TOLERATE_TAIL.refusal(replay(log, TOLERATE_TAIL), log.length);
        assertTrue(why != null && why.startsWith("policy tolerate-tail: crc-mismatch at offset " + b.offset(2) + " is not at the tail"), why);
    }
}
