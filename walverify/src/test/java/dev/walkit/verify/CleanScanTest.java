package dev.walkit.verify;


import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.replay.CleanScan;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
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
    static void generate(@TempDir Path tmp) throws Exception {
        Path a = tmp.resolve("plain");
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 384 << 10)).write(a);
        plain = Files.readAllBytes(a);
        plainRecords = new DamageInjector(plain);
        Path b = tmp.resolve("compacted");
        new K8sWalGenerator(K8sWalGenerator.Options.of(6, 384 << 10).withCompacted(true)).write(b);
        compacted = Files.readAllBytes(b);
        compactedRecords = new DamageInjector(compacted);
    }

    /** A broken replay rule, made by re-encoding one record (its CRC stays right). */
    enum Rule {
        VERSION_PLUS_ONE(kv -> kv.isDelete() ? kv : new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version() + 1, kv.value(), kv.lease())),
        CREATE_REVISION_ZERO(kv -> kv.isDelete() ? kv : new KeyValue(kv.flags(), kv.key(), 0, kv.modRevision(), kv.version(), kv.value(), kv.lease())),
        DELETE_OF_ABSENT_KEY(kv -> KeyValue.delete("/registry/never/was".getBytes(StandardCharsets.UTF_8), kv.modRevision()).withFlags(kv.flags() | Flags.DELETE)),
        REVISION_ONE(kv -> new KeyValue(kv.flags(), kv.key(), kv.createRevision(), 1, kv.version(), kv.value(), kv.lease())),
        TXN_CONT_ADDED(kv -> kv.withFlags(kv.flags() | Flags.TXN_CONT)),
        TXN_CONT_REMOVED(kv -> kv.withFlags(kv.flags() & ~Flags.TXN_CONT)),
        SNAPSHOT_FLAG(kv -> kv.withFlags(kv.flags() | Flags.SNAPSHOT)),
        SNAPSHOT_FLAG_REMOVED(kv -> kv.withFlags(kv.flags() & ~Flags.SNAPSHOT)),
        MARKER_COUNT_PLUS_ONE(kv -> kv.key().length == 0 && kv.value().length == 8
                ? new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version(),
                        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ByteBuffer.wrap(kv.value()).order(ByteOrder.LITTLE_ENDIAN).getLong() + 1).array(),
                        kv.lease())
                : kv);

        final UnaryOperator<KeyValue> change;

        Rule(UnaryOperator<KeyValue> change) {
            this.change = change;
        }
    }

    static byte[] broken(DamageInjector records, int i, Rule rule) {
        return records.reencoded(i, rule.change);
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
            for (Rule r : Rule.values()) {
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
    void aBrokenRuleReportsWhatReplayReports(boolean isCompacted, Rule rule, int record) throws Exception {
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
        List<VerifyReport> rs = sameAsReplay(broken(plainRecords, found, Rule.VERSION_PLUS_ONE));
        assertEquals("version mismatch after the join", rs.get(1).cleanPathEnded, "m=" + m + " at " + plainRecords.offset(m) + " found=" + found + " at " + plainRecords.offset(found) + " size " + plain.length);
        assertEquals(1, rs.get(1).findings.size());
    }
}
