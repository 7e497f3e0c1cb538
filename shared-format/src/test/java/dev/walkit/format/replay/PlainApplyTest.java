package dev.walkit.format.replay;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.group.TransactionGrouper;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFormat;
import dev.walkit.format.WalReader;
import dev.walkit.format.group.Transaction;
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
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replay, where a whole transaction of plain records that breaks no rule is applied straight from the reader's
 * batch (Replayer.applyPlain), leaves exactly what replay of every record grouped as a WalEntry leaves (built here
 * from the public parts: WalReader, TransactionGrouper, Replayer): the state of every key ever seen, every
 * damage and finding, the counts, and the listener's account of each transaction kept or dropped and of each
 * record read and applied, in order. For clean and compacted logs, each broken rule and each damage kind at
 * records from the first to the last, and the options of point-in-time recovery.
 */
class PlainApplyTest {
    private static final HexFormat HEX = HexFormat.of();
    static byte[] plain;
    static byte[] compacted;
    static DamageInjector plainRecords;
    static DamageInjector compactedRecords;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate() throws Exception {
        plain = new K8sWalGenerator(K8sWalGenerator.Options.of(21, 256 << 10)).bytes();
        plainRecords = new DamageInjector(plain);
        compacted = new K8sWalGenerator(K8sWalGenerator.Options.of(22, 256 << 10).withCompacted(true)).bytes();
        compactedRecords = new DamageInjector(compacted);
    }

    /** What a listener is told, in order; transactions kept plain are written as any other kept one. */
    private static final class Account implements Replayer.Listener {
        final List<String> events = new ArrayList<>();
        int plain;
        int ordinary;

        @Override
        public void read(long offset, long revision) {
            events.add("read " + offset + " @" + revision);
        }

        @Override
        public void recordApplied(long offset, long revision, boolean delete, KeyState state) {
            events.add("applied " + offset + " @" + revision + (delete ? " delete " : " put ") + HEX.formatHex(state.key()));
        }

        @Override
        public void applied(Transaction txn, KeyIndex keys) {
            if (!txn.isSnapshot()) ordinary++;
            if (txn.plain()) plain++;
            events.add("kept " + txn.offset() + ".." + txn.end() + " of " + txn.records() + " = " + txn.entries().stream()
                    .map(e -> e.offset() + "@" + e.revision() + "/" + e.createRevision() + "/" + e.version() + " " + HEX.formatHex(e.key()))
                    .toList());
        }

        @Override
        public void dropped(Transaction txn, dev.walkit.format.replay.DropReason reason) {
            String why = reason.text();
            events.add("dropped " + txn.offset() + ".." + txn.end() + ": " + why);
        }

        @Override
        public void damage(DamageSpan span) {
            events.add("damage " + span);
        }
    }

    /** Everything a replay leaves, in words. */
    private static String describe(Replay.Result res) {
        Replayer s = res.state();
        StringBuilder b = new StringBuilder();
        b.append("records read ").append(res.records()).append(", applied ").append(s.records())
                .append(", transactions ").append(s.transactions()).append(", revision ").append(s.revision())
                .append(", first ").append(s.firstRevision()).append(", compact ").append(s.compactRevision())
                .append("\ndamage ").append(s.damage()).append("\nfindings ").append(s.findings())
                .append("\ncounts ").append(s.findingCounts()).append("\nleases ").append(s.leases(60))
                .append("\nlive ").append(s.keys().liveCount()).append(", tombstones ").append(s.keys().tombstoneCount());
        for (KeyState k : s.keys().sorted()) {
            b.append('\n').append(HEX.formatHex(k.key())).append(k.live() ? " live " : " deleted ").append(k.createRevision())
                    .append('/').append(k.modRevision()).append('/').append(k.version()).append(" lease ").append(k.lease())
                    .append(" value ").append(k.valueOffset()).append('+').append(k.valueLength()).append(" record ").append(k.recordOffset());
        }
        return b.toString();
    }

    /** Replays {@code log} both ways, asserts they agree, and returns what the listener of the batches was told. */
    private Account same(byte[] log, ReaderOptions ro, Replayer.Options options) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), log);
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            Account entries = new Account();
            String byEntries = describe(byEntries(f, ro, options, entries));
            Account batches = new Account();
            String byBatches = describe(Replay.run(f, ro, options, batches));
            assertEquals(byEntries, byBatches, "state and findings");
            assertEquals(entries.events, batches.events, "the listener's account");
            assertEquals(0, entries.plain);
            // Without a listener, as walrecover's full read-back and walmigrate replay.
            assertEquals(byEntries, describe(Replay.run(f, ro, options, null)), "no listener");
            return batches;
        }
    }

    /** Replay of every record as a WalEntry through grouping: no transaction applied from a batch. */
    private static Replay.Result byEntries(WalFile f, ReaderOptions ro, Replayer.Options options, Account listener) {
        Replayer r = new Replayer(options, f::read, listener);
        TransactionGrouper g = new TransactionGrouper(r);
        long records = 0;
        WalReader reader = new WalReader(f, ro.withLevel(ReaderOptions.Level.DECODE));
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (x instanceof RecordView v) {
                records++;
                WalEntry e = WalEntry.of(v);
                listener.read(e.offset(), e.revision());
                g.accept(e);
            } else {
                g.accept((DamageSpan) x);
            }
        }
        g.end();
        r.end(f.size());
        return new Replay.Result(f.path(), WalFormat.V2, f.size(), records, r);
    }

    private static DamageInjector recordsOf(byte[] log) {
        return log == plain ? plainRecords : compactedRecords;
    }

    private static int[] positions(DamageInjector records) {
        int n = records.recordCount();
        return new int[] {0, 1, 2, n / 3, n / 2, 2 * n / 3, n - 2, n - 1};
    }

    private static Replayer.Options pointInTime(long toRevision) {
        return new Replayer.Options(false, toRevision, true);
    }

    @Test
    void aCleanLogIsAppliedPlainWithTheSameResult() throws Exception {
        for (byte[] log : new byte[][] {plain, compacted}) {
            Account a = same(log, ReaderOptions.defaults(), Replayer.Options.defaults());
            // All ordinary transactions but the first and any across the end of a batch (of 1024 records): if few
            // were taken plain, the tests here would test little.
            int batchEnds = recordsOf(log).recordCount() / 1024;
            assertTrue(a.plain >= a.ordinary - 1 - batchEnds && a.plain > 100, a.plain + " of " + a.ordinary + " ordinary transactions applied plain");
            assertTrue(a.events.stream().anyMatch(e -> e.startsWith("kept") && !e.endsWith(" of 1")), "transactions of several records too");
        }
    }

    private static KeyValue put(String key, long create, long rev, long version, boolean txnCont) {
        KeyValue kv = KeyValue.put(key.getBytes(StandardCharsets.UTF_8), create, rev, version, new byte[] {(byte) rev}, rev % 3);
        return txnCont ? kv.withFlags(Flags.TXN_CONT) : kv;
    }

    @Test
    void aTransactionThatNamesAKeyTwiceOrIsLongIsJudgedRecordByRecord() throws Exception {
        LogBuilder b = new LogBuilder();
        b.add(put("/a", 1, 1, 1, false));
        b.add(put("/b", 2, 2, 1, false));
        // Revision 3: /a twice, versions 2 then 3, each right once the one before is applied.
        b.add(put("/a", 1, 3, 2, true)).add(put("/a", 1, 3, 3, false));
        // Revision 4: /b twice with version 2: the second breaks the rule, though each alone would not.
        b.add(put("/b", 2, 4, 2, true)).add(put("/b", 2, 4, 2, false));
        // Revision 5: /c put and deleted.
        b.add(put("/c", 5, 5, 1, true)).add(KeyValue.delete("/c".getBytes(StandardCharsets.UTF_8), 5));
        // Revision 6: more records than a plain transaction takes.
        for (int i = 0; i <= 16; i++) b.add(put("/many/" + i, 6, 6, 1, i < 16));
        // Revision 7: two keys once each, applied plain.
        b.add(put("/a", 1, 7, 4, true)).add(put("/b", 2, 7, 3, false));
        Account a = same(b.bytes(), ReaderOptions.defaults(), Replayer.Options.defaults());
        assertEquals(List.of("kept 0.." + b.offset(1) + " of 1", "kept " + b.offset(1) + ".." + b.offset(2) + " of 1",
                "kept " + b.offset(2) + ".." + b.offset(4) + " of 2", "kept " + b.offset(4) + ".." + b.offset(6) + " of 2",
                "kept " + b.offset(6) + ".." + b.offset(8) + " of 2", "kept " + b.offset(8) + ".." + b.offset(25) + " of 17",
                "kept " + b.offset(25) + ".." + b.bytes().length + " of 2"),
                a.events.stream().filter(e -> e.startsWith("kept ")).map(e -> e.substring(0, e.indexOf(" = "))).toList());
        // The first transaction goes the way of WalEntries (nothing applied yet), then /b once, then revision 7.
        assertEquals(2, a.plain);
        Path wal = Files.write(dir.resolve("twice"), b.bytes());
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(List.of(DamageKind.VERSION_MISMATCH), s.findings().stream().map(Finding::kind).toList());
            assertEquals(b.offset(5), s.findings().get(0).offset(), "the second record of /b at revision 4");
            assertEquals(19, s.keys().liveCount());
        }
    }

    @Test
    void pointInTimeToSeveralRevisionsIsTheSame() throws Exception {
        Path wal = Files.write(dir.resolve("rev"), plain);
        long last;
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            last = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state().revision();
        }
        for (long r : new long[] {1, 2, last / 3, last / 2, last - 1, last}) {
            same(plain, ReaderOptions.defaults(), new Replayer.Options(false, r, false));
            same(plain, ReaderOptions.defaults(), pointInTime(r));
        }
    }

    static Stream<Arguments> rules() {
        List<Arguments> out = new ArrayList<>();
        for (boolean c : new boolean[] {false, true}) {
            for (RuleBreak r : RuleBreak.values()) {
                for (int i : positions(c ? compactedRecords : plainRecords)) out.add(Arguments.of(c, r, i));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "compacted={0}: {1} at record {2}")
    @MethodSource("rules")
    void aBrokenRuleIsFoundAsByEntries(boolean isCompacted, RuleBreak rule, int record) throws Exception {
        byte[] log = rule.applyTo(isCompacted ? compactedRecords : plainRecords, record);
        same(log, ReaderOptions.defaults(), Replayer.Options.defaults());
        same(log, ReaderOptions.defaults(), pointInTime(Long.MAX_VALUE));
    }

    static Stream<Arguments> damage() {
        List<Arguments> out = new ArrayList<>();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            for (int i : positions(plainRecords)) out.add(Arguments.of(k, i));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} at record {1}")
    @MethodSource("damage")
    void damageIsReplayedAsByEntries(DamageInjector.Kind kind, int record) throws Exception {
        byte[] log = plainRecords.apply(kind, record, 7).log();
        same(log, ReaderOptions.defaults(), Replayer.Options.defaults());
        same(log, ReaderOptions.defaults(), pointInTime(Long.MAX_VALUE));
        for (CrcRange accepted : new CrcRange[] {CrcRange.PAYLOAD_ONLY, CrcRange.SKIP_FLAGS}) {
            same(log, ReaderOptions.defaults().withAcceptCrc(accepted), Replayer.Options.defaults());
        }
    }
}
