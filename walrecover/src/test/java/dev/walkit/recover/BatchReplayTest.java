package dev.walkit.recover;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.Transaction;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import dev.walkit.testdata.RuleBreak;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replay of a v2 log in batches, where a plain record that is a transaction by itself and breaks no
 * rule is applied as it is (Replayer.applyAlone, what walrecover's replay takes), leaves exactly what
 * replay of WalEntries leaves: the state of every key ever seen, every damage and finding, the
 * counts, and the listener's account of each transaction kept or dropped, in order. For clean and
 * compacted logs, each broken rule and each damage kind at records from the first to the last, and
 * the options of point-in-time recovery.
 */
class BatchReplayTest {
    private static final HexFormat HEX = HexFormat.of();
    static byte[] plain;
    static byte[] compacted;
    static DamageInjector plainRecords;
    static DamageInjector compactedRecords;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate(@TempDir Path tmp) throws Exception {
        Path a = tmp.resolve("plain");
        new K8sWalGenerator(K8sWalGenerator.Options.of(21, 256 << 10)).write(a);
        plain = Files.readAllBytes(a);
        plainRecords = new DamageInjector(plain);
        Path b = tmp.resolve("compacted");
        new K8sWalGenerator(K8sWalGenerator.Options.of(22, 256 << 10).withCompacted(true)).write(b);
        compacted = Files.readAllBytes(b);
        compactedRecords = new DamageInjector(compacted);
    }

    /** What a listener is told, in order; transactions kept alone are written as any other kept one. */
    private static final class Account implements Replayer.Listener {
        final List<String> events = new ArrayList<>();
        int alone;

        @Override
        public void applied(Transaction txn, KeyIndex keys) {
            events.add("kept " + txn.offset() + ".." + txn.end() + " of " + txn.entries().size());
        }

        @Override
        public void dropped(Transaction txn, String why) {
            events.add("dropped " + txn.offset() + ".." + txn.end() + ": " + why);
        }

        @Override
        public void damage(DamageSpan span) {
            events.add("damage " + span);
        }

        @Override
        public boolean takesAlone() {
            return true;
        }

        @Override
        public void appliedAlone(long offset, long length) {
            alone++;
            events.add("kept " + offset + ".." + (offset + length) + " of 1");
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

    /** Replays {@code log} both ways, asserts they agree, and returns how many transactions were applied alone. */
    private int same(byte[] log, ReaderOptions ro, Replayer.Options options) throws Exception {
        Path wal = Files.write(dir.resolve("wal"), log);
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            Account entries = new Account();
            // A tap: every item is made a WalEntry and grouped, as before batches.
            String byEntries = describe(Replay.run(f, ro, options, entries, it -> { }));
            Account batches = new Account();
            String byBatches = describe(Replay.run(f, ro, options, batches, null));
            assertEquals(byEntries, byBatches, "state and findings");
            assertEquals(entries.events, batches.events, "the listener's account");
            assertEquals(0, entries.alone);
            // Without a listener, as walrecover's full read-back and walmigrate replay.
            assertEquals(byEntries, describe(Replay.run(f, ro, options, null, null)), "no listener");
            return batches.alone;
        }
    }

    private static int[] positions(DamageInjector records) {
        int n = records.recordCount();
        return new int[] {0, 1, 2, n / 3, n / 2, 2 * n / 3, n - 2, n - 1};
    }

    private static Replayer.Options pointInTime(long toRevision) {
        return new Replayer.Options(false, toRevision, true);
    }

    @Test
    void aCleanLogIsLargelyAppliedAloneWithTheSameResult() throws Exception {
        for (byte[] log : new byte[][] {plain, compacted}) {
            Path wal = Files.write(dir.resolve("count"), log);
            long transactions;
            try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
                transactions = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null, null).state().transactions();
            }
            int alone = same(log, ReaderOptions.defaults(), Replayer.Options.defaults());
            // Most of the generator's transactions are of one record (a compacted log's snapshot records count as
            // transactions too): if few were taken alone, the tests here would test little.
            assertTrue(alone > transactions / 3, alone + " of " + transactions + " transactions applied alone");
        }
    }

    @Test
    void pointInTimeToSeveralRevisionsIsTheSame() throws Exception {
        Path wal = Files.write(dir.resolve("rev"), plain);
        long last;
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            last = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null, null).state().revision();
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
