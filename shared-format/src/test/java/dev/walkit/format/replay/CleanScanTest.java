package dev.walkit.format.replay;


import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import dev.walkit.testdata.RuleBreak;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The light replay (CleanScan), in one pass or two halves, takes a log exactly when Replayer has nothing
 * to report of it, and then leaves the same facts and state digest: for clean logs (where it must hold)
 * and for every damage kind and every broken replay rule at the first record, around the middle and at the
 * end (where it must stop and hand over to Replayer).
 */
class CleanScanTest {
    static byte[] plain;
    static byte[] compacted;
    static DamageInjector plainRecords;
    static DamageInjector compactedRecords;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate() throws Exception {
        plain = new K8sWalGenerator(K8sWalGenerator.Options.of(5, 384 << 10)).bytes();
        plainRecords = new DamageInjector(plain);
        compacted = new K8sWalGenerator(K8sWalGenerator.Options.of(6, 384 << 10).withCompacted(true)).bytes();
        compactedRecords = new DamageInjector(compacted);
    }

    static byte[] broken(DamageInjector records, int i, RuleBreak rule) {
        return rule.applyTo(records, i);
    }

    /** First, second, around the byte where the halves meet, three quarters in, last. */
    static int[] positions(byte[] log, DamageInjector records) {
        int m = 0;
        long middle = (long) (log.length * CleanScan.FIRST_SHARE);
        while (m + 1 < records.recordCount() && records.offset(m + 1) <= middle) m++;
        int n = records.recordCount();
        return new int[] {0, 1, m - 1, m, m + 1, m + 2, 3 * n / 4, n - 1};
    }

    static Stream<Arguments> rules() {
        List<Arguments> out = new ArrayList<>();
        for (boolean c : new boolean[] {false, true}) {
            for (RuleBreak r : RuleBreak.values()) {
                for (int i : positions(c ? compacted : plain, c ? compactedRecords : plainRecords)) out.add(Arguments.of(c, r, i));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> damage() {
        List<Arguments> out = new ArrayList<>();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            for (int i : positions(plain, plainRecords)) out.add(Arguments.of(k, i));
        }
        return out.stream();
    }

    /** What the light replay of {@code wal} found, in one pass ({@code minSplit} MAX) or two halves (0). */
    private static CleanReplay light(WalFile f, long minSplit) throws Exception {
        return CleanScan.scan(f, ReaderOptions.defaults(), CleanReplay.whole(), minSplit);
    }

    /** The facts both replays give, in words. */
    private static String facts(long records, long transactions, long revision, long compact, long live, long tombstones) {
        return "records " + records + ", transactions " + transactions + ", revision " + revision + ", compact " + compact
                + ", live " + live + ", tombstones " + tombstones;
    }

    /**
     * The light replay, in one pass and in two halves, takes {@code log} exactly when {@link Replayer} has nothing to
     * report of it, and then leaves the same facts; returns the two light replays (one pass, two halves).
     */
    private List<CleanReplay> sameAsReplay(byte[] log) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), log);
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            Replay.Result res = Replay.run(f, ro, Replayer.Options.defaults(), null);
            Replayer s = res.state();
            boolean clean = s.damage().isEmpty() && s.findings().isEmpty();
            String expected = facts(res.records(), s.transactions(), s.revision(), s.compactRevision(), s.keys().liveCount(),
                    s.keys().tombstoneCount());
            List<CleanReplay> out = new ArrayList<>();
            for (long minSplit : new long[] {Long.MAX_VALUE, 0}) {
                CleanReplay c = light(f, minSplit);
                String way = minSplit == 0 ? "two halves" : "one pass";
                if (clean) {
                    assertNull(c.irregularity(), way);
                    assertEquals(expected, facts(c.records(), c.transactions(), c.revision(), c.compactRevision(), c.liveCount(),
                            c.tombstoneCount()), way);
                    CleanReplay d = CleanScan.scan(f, ro, CleanReplay.forDigest(), minSplit);
                    assertEquals(StateDigest.of(s.keys(), s.revision(), f::readFully), d.digest(f::readFully), way + ": digest");
                } else {
                    assertTrue(c.irregularity() != null, way + " must hand over: " + s.damage() + " " + s.findings());
                }
                out.add(c);
            }
            return out;
        }
    }

    @Test
    void aCleanLogTakesTheFastPathAndReportsWhatReplayReports() throws Exception {
        for (byte[] log : new byte[][] {plain, compacted}) {
            List<CleanReplay> rs = sameAsReplay(log);
            for (CleanReplay c : rs) {
                assertNull(c.irregularity());
                assertTrue(c.liveCount() > 0);
            }
            assertFalse(rs.get(0).joined());
            assertTrue(rs.get(1).joined(), "two halves joined");
        }
    }

    @ParameterizedTest(name = "compacted={0}: {1} at record {2}")
    @MethodSource("rules")
    void aBrokenRuleReportsWhatReplayReports(boolean isCompacted, RuleBreak rule, int record) throws Exception {
        byte[] log = broken(isCompacted ? compactedRecords : plainRecords, record, rule);
        sameAsReplay(log);
    }

    @ParameterizedTest(name = "{0} at record {1}")
    @MethodSource("damage")
    void damageReportsWhatReplayReports(DamageInjector.Kind kind, int record) throws Exception {
        for (CleanReplay c : sameAsReplay(plainRecords.apply(kind, record, 7).log())) {
            assertTrue(c.irregularity() != null, "damage ends the fast path");
        }
    }

    @Test
    void aVersionBrokenInAKeysFirstRecordPastTheMiddleIsCaughtAtTheJoin() throws Exception {
        // A key put in the first half and once more in the second, its last record: only the join can check it.
        int m = positions(plain, plainRecords)[3];
        java.util.Map<String, Integer> firstAt = new java.util.HashMap<>();
        java.util.Map<String, Integer> lastAt = new java.util.HashMap<>();
        List<KeyValue> kvs = new ArrayList<>();
        for (int i = 0; i < plainRecords.recordCount(); i++) {
            KeyValue kv = plainRecords.record(i);
            kvs.add(kv);
            String key = new String(kv.key(), StandardCharsets.ISO_8859_1);
            firstAt.putIfAbsent(key, i);
            lastAt.put(key, i);
        }
        int found = -1;
        for (int i = m + 4; i < kvs.size() && found < 0; i++) {
            KeyValue kv = kvs.get(i);
            String key = new String(kv.key(), StandardCharsets.ISO_8859_1);
            boolean onlyOnceInTheSecondHalf = lastAt.get(key) == i && kvs.subList(m, i).stream().noneMatch(o -> java.util.Arrays.equals(o.key(), kv.key()));
            if (firstAt.get(key) < m && onlyOnceInTheSecondHalf && !kv.isDelete() && kv.version() > 1) found = i;
        }
        assertTrue(found > 0, "the generator's log updates keys");
        List<CleanReplay> rs = sameAsReplay(broken(plainRecords, found, RuleBreak.VERSION_PLUS_ONE));
        assertEquals("version mismatch after the join", rs.get(1).irregularity(), "m=" + m + " at " + plainRecords.offset(m)
                + " found=" + found + " at " + plainRecords.offset(found) + " size " + plain.length);
    }
}
