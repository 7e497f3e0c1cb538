package dev.walkit.verify;


import dev.walkit.format.KeyValue;
import dev.walkit.format.replay.CleanScan;
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
 * The semantic level's fast path (CleanScan), in one pass or two halves, reports exactly what a replay
 * by Replayer reports: for clean logs (where the fast path must hold) and for every damage kind and
 * every broken replay rule at the first record, around the middle and at the end (where it must end
 * and hand over to Replayer without a trace of its own).
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

    private record Run(String report, VerifyReport r) {
    }

    private Run run(Path wal, long minSplit, boolean cleanPath) throws Exception {
        List<String> streamed = new ArrayList<>();
        VerifyReport r = Verifier.verify(wal, VerifyLevel.SEMANTIC, new Verifier.Listener() {
            @Override
            public void damage(dev.walkit.format.replay.DamageLocator.Located d) {
                streamed.add("damage " + WalVerify.damageJson(new dev.walkit.cli.Json(), d));
            }

            @Override
            public void finding(dev.walkit.format.Finding f) {
                streamed.add("finding " + f);
            }
        }, minSplit, cleanPath);
        return new Run(WalVerify.summaryJson(r, WalVerify.exitCode(r), true) + "\n" + String.join("\n", streamed), r);
    }

    /** The three ways agree; returns the fast path's two runs (one pass, two halves). */
    private List<VerifyReport> sameAsReplay(byte[] log) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), log);
        Run replay = run(wal, Long.MAX_VALUE, false);
        Run onePass = run(wal, Long.MAX_VALUE, true);
        Run halves = run(wal, 0, true);
        assertEquals(replay.report(), onePass.report(), "one pass");
        assertEquals(replay.report(), halves.report(), "two halves");
        assertFalse(replay.r().cleanPath);
        return List.of(onePass.r(), halves.r());
    }

    @Test
    void aCleanLogTakesTheFastPathAndReportsWhatReplayReports() throws Exception {
        for (byte[] log : new byte[][] {plain, compacted}) {
            for (VerifyReport r : sameAsReplay(log)) {
                assertTrue(r.cleanPath, r.cleanPathEnded);
                assertNull(r.cleanPathEnded);
                assertTrue(r.liveKeys() > 0);
            }
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
        for (VerifyReport r : sameAsReplay(plainRecords.apply(kind, record, 7).log())) {
            assertFalse(r.cleanPath, "damage ends the fast path");
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
        List<VerifyReport> rs = sameAsReplay(broken(plainRecords, found, RuleBreak.VERSION_PLUS_ONE));
        assertEquals("version mismatch after the join", rs.get(1).cleanPathEnded, "m=" + m + " at " + plainRecords.offset(m) + " found=" + found + " at " + plainRecords.offset(found) + " size " + plain.length);
        assertEquals(1, rs.get(1).findings.size());
    }
}
