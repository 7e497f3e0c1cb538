package dev.walkit.format;

import dev.walkit.format.scan.SplitScan;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The split scan, with parts that write down every result they take: joined, the two parts hold exactly what one
 * pass reads, in order; a part that cannot go on stops the scan on both threads; parts that will not join leave
 * the first part to read on and still read everything once.
 */
class SplitScanTest {
    static byte[] clean;
    static DamageInjector records;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate() throws Exception {
        clean = new K8sWalGenerator(K8sWalGenerator.Options.of(3, 384 << 10)).bytes();
        records = new DamageInjector(clean);
    }

    /** Writes down each result as "offset+length kind"; stops (take false) at {@code stopAt}. */
    static final class Seen implements SplitScan.Part {
        final List<String> results = new ArrayList<>();
        final long stopAt;

        Seen(long stopAt) {
            this.stopAt = stopAt;
        }

        @Override
        public boolean take(ReadResult x) {
            if (x.offset() == stopAt) return false;
            results.add(x.offset() + "+" + x.length() + (x instanceof RecordView ? " record" : " " + ((DamageSpan) x).kind().label()));
            return true;
        }
    }

    /** Units of records that close a transaction; joins when {@code joins}. */
    record Parts(long stopAt, boolean joins, List<Seen> laters) implements SplitScan.Parts<Seen> {
        @Override
        public Seen later() {
            Seen s = new Seen(stopAt);
            laters.add(s);
            return s;
        }

        @Override
        public boolean endsUnit(RecordView v) {
            return !v.isTxnCont();
        }

        @Override
        public SplitScan.Join join(Seen first, Seen later) {
            if (!joins) return SplitScan.Join.READ_ON;
            first.results.addAll(later.results);
            return SplitScan.Join.JOINED;
        }

        @Override
        public boolean stopsTheFirst(Seen later) {
            return true;
        }

        @Override
        public void stopped(Seen first, Seen later) {
            first.results.add("stopped");
        }
    }

    private record Scan(SplitScan.Outcome outcome, List<String> results) {
    }

    private Scan scan(byte[] log, long minSplit, long stopAt, boolean joins) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), log);
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            Seen first = new Seen(stopAt);
            SplitScan.Outcome o = SplitScan.scan(f, ReaderOptions.defaults(), first, new Parts(stopAt, joins, new ArrayList<>()), 0.5,
                    minSplit, "test-second-half");
            return new Scan(o, first.results);
        }
    }

    @Test
    void joinedPartsHoldWhatOnePassReads() throws Exception {
        Scan one = scan(clean, Long.MAX_VALUE, -1, true);
        Scan two = scan(clean, 0, -1, true);
        assertEquals(SplitScan.Outcome.ONE_THREAD, one.outcome());
        assertEquals(SplitScan.Outcome.JOINED, two.outcome());
        assertEquals(one.results(), two.results());
        assertEquals(records.recordCount(), one.results().size());
    }

    @Test
    void partsThatDoNotJoinLeaveTheFirstToReadOn() throws Exception {
        Scan two = scan(clean, 0, -1, false);
        assertEquals(SplitScan.Outcome.READ_ON, two.outcome());
        assertEquals(scan(clean, Long.MAX_VALUE, -1, true).results(), two.results());
    }

    @Test
    void damageAcrossTheMiddleIsReadOnceAsOnePassReadsIt() throws Exception {
        int m = 0;
        while (m + 1 < records.recordCount() && records.offset(m + 1) <= clean.length / 2) m++;
        // Resync reads a CRC mismatch; a record whose frame is valid but whose payload is not (decode level) is
        // where resync from the middle lands: the later part must leave it to the first.
        for (DamageInjector.Kind k : new DamageInjector.Kind[] {DamageInjector.Kind.CRC_MISMATCH, DamageInjector.Kind.INCONSISTENT_HEADER,
                DamageInjector.Kind.UNDECODABLE_PAYLOAD}) {
            for (int i : new int[] {m - 1, m, m + 1, m + 2}) {
                DamageInjector.Expected e = records.apply(k, i, 3);
                Scan one = scan(e.log(), Long.MAX_VALUE, -1, true);
                Scan two = scan(e.log(), 0, -1, true);
                assertEquals(one.results(), two.results(), k + " at record " + i);
                assertEquals(1, one.results().stream().filter(r -> r.endsWith(e.kind().label())).count(), k + " at record " + i);
            }
        }
    }

    @Test
    void aPartThatCannotGoOnStopsTheScan() throws Exception {
        int n = records.recordCount();
        int m = 0;
        while (m + 1 < n && records.offset(m + 1) <= clean.length / 2) m++;
        for (int k : new int[] {m / 2, m + (n - m) / 2}) { // in the first part, in the later one
            Scan two = scan(clean, 0, records.offset(k), true);
            assertEquals(SplitScan.Outcome.STOPPED, two.outcome(), "record " + k + " at " + records.offset(k) + " of " + clean.length + ": " + two.results().size() + " results");
            Scan one = scan(clean, Long.MAX_VALUE, records.offset(k), true);
            assertEquals(SplitScan.Outcome.STOPPED, one.outcome());
            assertEquals(k, one.results().size(), "one pass stops at record " + k);
        }
    }
}
