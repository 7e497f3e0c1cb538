package dev.walkit.verify;

import dev.walkit.format.pass.Level;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PassReport;
import dev.walkit.format.scan.SplitScan;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Read in two halves or in one pass, the report is the same, byte for byte, wherever the damage is. */
class FrameScanTest {
    static byte[] clean;
    static DamageInjector injector;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate(@TempDir Path tmp) throws Exception {
        Path wal = tmp.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(11, 512 << 10)).write(wal);
        clean = Files.readAllBytes(wal);
        injector = new DamageInjector(clean);
    }

    /** The record that holds the middle byte of the file, and its neighbours. */
    static int middleRecord() {
        int i = 0;
        while (i + 1 < injector.recordCount() && injector.offset(i + 1) <= clean.length / 2) i++;
        return i;
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        int m = middleRecord();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            for (int i : new int[] {0, m - 1, m, m + 1, m + 2, injector.recordCount() - 1}) {
                for (Level level : new Level[] {Level.FRAME, Level.DECODE}) out.add(Arguments.of(k, i, level));
            }
        }
        return out.stream();
    }

    private String report(Path wal, Level level, long minSplit, List<SplitScan.Outcome> how) throws Exception {
        List<String> streamed = new ArrayList<>();
        PassReport r = Pass.read(wal, level, new Pass.Listener() {
            @Override
            public void damage(dev.walkit.format.replay.DamageLocator.Located d) {
                streamed.add(JsonPrinter.damage(new dev.walkit.cli.Json(), d).toString());
            }
        }, minSplit);
        how.add(r.scan());
        return JsonPrinter.summary(r, WalVerify.exitCode(r), true) + "\n" + String.join("\n", streamed);
    }

    @ParameterizedTest(name = "{0} at record {1}, {2}")
    @MethodSource("cases")
    void twoHalvesReportWhatOnePassReports(DamageInjector.Kind kind, int record, Level level) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), injector.apply(kind, record, 7).log());
        List<SplitScan.Outcome> how = new ArrayList<>();
        String one = report(wal, level, Long.MAX_VALUE, how);
        String two = report(wal, level, 0, how);
        assertEquals(one, two, how.toString());
        assertEquals(List.of(SplitScan.Outcome.ONE_THREAD), how.subList(0, 1));
    }

    @Test
    void aCleanLogIsJoinedAtTheMiddle() throws Exception {
        Path wal = Files.write(dir.resolve("wal"), clean);
        List<SplitScan.Outcome> how = new ArrayList<>();
        assertEquals(report(wal, Level.DECODE, Long.MAX_VALUE, how), report(wal, Level.DECODE, 0, how));
        assertEquals(List.of(SplitScan.Outcome.ONE_THREAD, SplitScan.Outcome.JOINED), how);
    }

    @Test
    void damageFarFromTheMiddleStillJoins() throws Exception {
        Path wal = Files.write(dir.resolve("wal"), injector.apply(DamageInjector.Kind.CRC_MISMATCH, 3, 1).log());
        List<SplitScan.Outcome> how = new ArrayList<>();
        assertEquals(report(wal, Level.FRAME, Long.MAX_VALUE, how), report(wal, Level.FRAME, 0, how));
        assertEquals(SplitScan.Outcome.JOINED, how.get(1));
    }
}
