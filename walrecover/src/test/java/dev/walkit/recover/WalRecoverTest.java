package dev.walkit.recover;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.Cli;
import dev.walkit.format.DamageKind;
import dev.walkit.format.Fixtures;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.KeyIndex;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import dev.walkit.testdata.LegacyV1Encoder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WalRecoverTest {
    private static byte[] clean;
    private static DamageInjector injector;
    private static List<List<KeyValue>> transactions;
    private static long compactRevision;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate(@TempDir Path tmp) throws Exception {
        Path wal = tmp.resolve("wal");
        K8sWalGenerator g = new K8sWalGenerator(K8sWalGenerator.Options.of(21, 200 << 10)).keepTransactions();
        g.write(wal);
        clean = Files.readAllBytes(wal);
        injector = new DamageInjector(clean);
        transactions = g.transactions();
        compactRevision = g.compactRevision();
    }

    record Run(int exit, String out, String err) {
    }

    /** The real CLI as a process of its own: {@code java -cp … WalRecover [--force] --out OUT INPUT}. */
    static List<String> process(Path input, Path out, boolean force) {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WalRecover.class.getName()));
        if (force) c.add("--force");
        c.addAll(List.of("--out", out.toString(), input.toString()));
        return c;
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(new WalRecover(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** The model's state after every transaction but those of {@code lost} revisions (and those after {@code upTo}). */
    static Map<String, String> expected(Set<Long> lost, long upTo) {
        TreeMap<String, String> state = new TreeMap<>();
        for (List<KeyValue> txn : transactions) {
            long rev = txn.get(0).modRevision();
            if (lost.contains(rev) || rev > upTo) continue;
            for (KeyValue kv : txn) {
                String k = HexFormat.of().formatHex(kv.key());
                if (kv.isDelete()) state.remove(k);
                else state.put(k, kv.createRevision() + "/" + kv.modRevision() + "/" + kv.version() + "/" + kv.lease() + "/" + HexFormat.of().formatHex(kv.value()));
            }
        }
        return state;
    }

    /** The state a WAL replays to, checking that it is clean. */
    static Map<String, String> replayClean(Path wal) throws Exception {
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(List.of(), s.damage(), "the recovery WAL has no damage");
            Map<DamageKind, Integer> findings = new java.util.EnumMap<>(DamageKind.class);
            findings.putAll(s.findingCounts());
            // Salvage keeps what survived as it was written: a put after a lost one breaks the version rule.
            findings.remove(DamageKind.VERSION_MISMATCH);
            findings.remove(DamageKind.DELETE_OF_ABSENT_KEY);
            assertEquals(Map.of(), findings, "the recovery WAL has no damage finding");
            return state(s.keys(), f);
        }
    }

    /** Compares states, naming only the first few differing keys (values are long). */
    static void assertSameState(Map<String, String> want, Map<String, String> got) {
        List<String> diff = new ArrayList<>();
        Set<String> all = new java.util.TreeSet<>(want.keySet());
        all.addAll(got.keySet());
        for (String k : all) {
            String w = want.get(k);
            String g = got.get(k);
            if (w == null || !w.equals(g)) {
                String key = new String(HexFormat.of().parseHex(k), StandardCharsets.UTF_8);
                diff.add(key + ": want " + abbrev(w) + ", got " + abbrev(g));
            }
        }
        assertEquals(List.of(), diff.subList(0, Math.min(5, diff.size())), diff.size() + " key(s) differ");
    }

    private static String abbrev(String v) {
        return v == null ? "absent" : v.length() > 60 ? v.substring(0, 60) + "..." : v;
    }

    static Map<String, String> state(KeyIndex keys, WalFile f) {
        TreeMap<String, String> out = new TreeMap<>();
        for (KeyState k : keys.sortedLive()) {
            out.put(HexFormat.of().formatHex(k.key()), k.createRevision() + "/" + k.modRevision() + "/" + k.version() + "/" + k.lease() + "/"
                    + HexFormat.of().formatHex(f.read(k.valueOffset(), k.valueLength())));
        }
        return out;
    }

    static long revisionOf(int record) {
        return new RecordView().wrap(ByteBuffer.wrap(clean).order(ByteOrder.LITTLE_ENDIAN), (int) injector.offset(record), injector.offset(record)).revision();
    }

    /** Index of a record that is a whole transaction by itself, at or after {@code from}. */
    static int singleRecordTxnAtOrAfter(int from) {
        for (int i = Math.max(1, from); i < injector.recordCount(); i++) {
            if (!Flags.isTxnCont(clean[(int) injector.offset(i)]) && !Flags.isTxnCont(clean[(int) injector.offset(i - 1)])) return i;
        }
        throw new IllegalStateException();
    }

    static Stream<Arguments> kindsAndPolicies() {
        List<Arguments> out = new ArrayList<>();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            if (k == DamageInjector.Kind.CRC_RANGE_BUG) continue;
            for (String p : new String[] {"salvage", "point-in-time", "tolerate-tail", "absolute"}) out.add(Arguments.of(k, p));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("kindsAndPolicies")
    void everyDamageKindUnderEveryPolicy(DamageInjector.Kind kind, String policy) throws Exception {
        int i = kind == DamageInjector.Kind.TORN_TAIL ? injector.recordCount() - 1 : singleRecordTxnAtOrAfter(injector.recordCount() / 2);
        DamageInjector.Expected e = injector.apply(kind, i, 4);
        Path input = Files.write(Files.createDirectories(dir.resolve("in")).resolve("wal"), e.log());
        String before = sha256(input);
        Path out = dir.resolve("out");
        Run r = run("--policy", policy, "--out", out.toString(), "--report", dir.resolve("report.json").toString(), input.toString());
        assertEquals(before, sha256(input), "the input is never modified");

        boolean inserted = kind == DamageInjector.Kind.GARBAGE_SPAN;
        boolean tail = kind == DamageInjector.Kind.TORN_TAIL;
        // A duplicated record is a finding, not damage: only absolute refuses it, and nothing is lost.
        boolean finding = kind == DamageInjector.Kind.DUPLICATED_RECORD;
        boolean refuse = policy.equals("absolute") || (policy.equals("tolerate-tail") && !tail && !finding);
        if (refuse) {
            assertEquals(3, r.exit(), r.out() + r.err());
            assertFalse(Files.exists(out.resolve("wal")), "a refusal writes nothing");
            return;
        }
        assertEquals(0, r.exit(), r.out() + r.err());
        long lostRev = revisionOf(i);
        Set<Long> lost = inserted || finding ? Set.of() : Set.of(lostRev);
        long upTo = policy.equals("point-in-time") && !finding ? lostRev - 1 : Long.MAX_VALUE; // inserted garbage too: everything after the first damage goes
        assertSameState(expected(lost, upTo), replayClean(out.resolve("wal")));
        JsonNode rep = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertEquals("crc32c", rep.get("output").get("checksum_algorithm").asText());
        assertEquals(crc32c(out.resolve("wal")), rep.get("output").get("checksum").asText());
        assertEquals(policy, rep.get("policy").asText());
        assertTrue(Files.exists(out.resolve("leases.json")));
    }

    /**
     * Kept records are copied byte for byte in runs of at most 8 MiB (Recovery.HistoryWriter.RUN_CHUNK): a
     * 20 MiB log is copied in several, and one damaged transaction in the middle splits a run. The output is
     * the input without that transaction's bytes, nothing more and nothing less.
     */
    @Test
    void aLogOfManyCopyRunsIsCopiedByteForByte() throws Exception {
        Path input = dir.resolve("big.wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(21, 20 << 20)).write(input);
        byte[] bytes = Files.readAllBytes(input);
        Path out = dir.resolve("out");
        Run clean = run("--out", out.toString(), input.toString());
        assertEquals(0, clean.exit(), clean.err());
        assertTrue(bytes.length > 2 * (8 << 20), "more than two runs: " + bytes.length);
        assertTrue(Arrays.equals(bytes, Files.readAllBytes(out.resolve("wal"))), "a clean log is copied as it is");

        // A transaction of one record past the middle (it and the record after it start transactions), a PUT of
        // a key no later record writes: dropping it leaves the kept records obeying §5 as they stand, so the
        // output stays in history form.
        List<long[]> records = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        Map<String, Integer> lastWrite = new java.util.HashMap<>();
        try (WalFile f = WalFile.open(input, ReaderOptions.defaults().maxRecLen())) {
            var reader = new WalReader(f, ReaderOptions.defaults());
            for (var x = reader.next(); x != null; x = reader.next()) {
                RecordView v = (RecordView) x;
                records.add(new long[] {v.offset(), v.length(), v.isTxnCont() ? 1 : 0, v.isDelete() ? 1 : 0});
                String key = HexFormat.of().formatHex(dev.walkit.format.WalEntry.of(v).key());
                keys.add(key);
                lastWrite.put(key, records.size() - 1);
            }
        }
        int i = records.size() / 2;
        while (records.get(i - 1)[2] != 0 || records.get(i)[2] != 0 || records.get(i)[3] != 0 || lastWrite.get(keys.get(i)) != i) i++;
        long at = records.get(i)[0];
        int len = (int) records.get(i)[1];
        byte[] damaged = bytes.clone();
        damaged[(int) at + len - 5] ^= 0x40; // a payload byte just before the CRC
        Files.write(input, damaged);
        Path out2 = dir.resolve("out2");
        Run r = run("--out", out2.toString(), input.toString());
        assertEquals(0, r.exit(), r.err());
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        want.write(bytes, 0, (int) at);
        want.write(bytes, (int) at + len, bytes.length - (int) at - len);
        assertTrue(Arrays.equals(want.toByteArray(), Files.readAllBytes(out2.resolve("wal"))),
                "the input without the damaged transaction at " + at);
    }

    @Test
    void damageToTheFirstRecordOfATransactionDropsItWhole() throws Exception {
        int i = 1;
        while (!(Flags.isTxnCont(clean[(int) injector.offset(i)]) && !Flags.isTxnCont(clean[(int) injector.offset(i - 1)]))) i++;
        DamageInjector.Expected e = injector.apply(DamageInjector.Kind.CRC_MISMATCH, i, 1);
        Path input = Files.write(dir.resolve("wal"), e.log());
        Path out = dir.resolve("out");
        assertEquals(0, run("--out", out.toString(), input.toString()).exit());
        assertSameState(expected(Set.of(revisionOf(i)), Long.MAX_VALUE), replayClean(out.resolve("wal")));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100, 400})
    void pointInTimeToARevision(int rev) throws Exception {
        Path input = Files.write(dir.resolve("wal"), clean);
        Path out = dir.resolve("out");
        Run r = run("--to-revision", Integer.toString(rev), "--out", out.toString(), input.toString());
        assertEquals(0, r.exit(), r.err());
        assertSameState(expected(Set.of(), rev), replayClean(out.resolve("wal")));
        Path compact = dir.resolve("compact");
        assertEquals(0, run("--to-revision", Integer.toString(rev), "--compact", "--out", compact.toString(), input.toString()).exit());
        assertSameState(expected(Set.of(), rev), replayClean(compact.resolve("wal")));
        assertEquals(0, compactRevision);
    }

    @Test
    void crcRangeBugNeedsTheFlag() throws Exception {
        DamageInjector.Expected e = injector.apply(DamageInjector.Kind.CRC_RANGE_BUG, 0, 1);
        Path input = Files.write(dir.resolve("wal"), e.log());
        Path out = dir.resolve("out");
        Run no = run("--out", out.toString(), input.toString());
        assertEquals(3, no.exit());
        assertTrue(no.err().contains("--accept-crc payload-only"), no.err());
        assertFalse(Files.exists(out.resolve("wal")));
        Run yes = run("--accept-crc", "payload-only", "--out", out.toString(), input.toString());
        assertEquals(0, yes.exit(), yes.err());
        assertSameState(expected(Set.of(), Long.MAX_VALUE), replayClean(out.resolve("wal")));
        // Written with correct CRCs: the bytes are the clean log's.
        assertEquals(sha256(Files.write(dir.resolve("clean"), clean)), sha256(out.resolve("wal")));
    }

    @Test
    void v1IsWrittenAsV2() throws Exception {
        ByteArrayOutputStream v1 = new ByteArrayOutputStream();
        v1.writeBytes(LegacyV1Encoder.encode(1, b("/a"), b("1"), false));
        v1.writeBytes(LegacyV1Encoder.encode(2, b("/b"), b("2"), false));
        v1.writeBytes(LegacyV1Encoder.encode(3, b("/a"), b("3"), false));
        v1.writeBytes(LegacyV1Encoder.encode(4, b("/b"), new byte[0], true));
        Path input = Files.write(dir.resolve("wal"), v1.toByteArray());
        Path out = dir.resolve("out");
        Run r = run("--out", out.toString(), input.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(Map.of(HexFormat.of().formatHex(b("/a")), "1/3/2/0/" + HexFormat.of().formatHex(b("3"))), replayClean(out.resolve("wal")));
    }

    @Test
    void sharedLogsRecoverToTheirExpectedState() throws Exception {
        for (String name : new String[] {"small", "small-torn-tail", "small-compacted"}) {
            Path out = dir.resolve(name);
            assertEquals(0, run("--out", out.toString(), Fixtures.path("vectors/" + name + "/wal").toString()).exit());
            JsonNode want = new ObjectMapper().readTree(Fixtures.path("vectors/" + name + "/expected.json").toFile());
            Map<String, String> got = replayClean(out.resolve("wal"));
            assertEquals(want.get("keys").size(), got.size(), name);
        }
    }

    @Test
    void refusesUnsafeTargets() throws Exception {
        Path inDir = Files.createDirectories(dir.resolve("data"));
        Path input = Files.write(inDir.resolve("wal"), clean);
        Run same = run("--out", inDir.toString(), inDir.toString());
        assertEquals(2, same.exit());
        assertTrue(same.err().contains("input's own directory"), same.err());
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("wal"), "old");
        Files.writeString(out.resolve("leases.json"), "old leases");
        assertEquals(2, run("--out", out.toString(), input.toString()).exit());
        assertEquals("old", Files.readString(out.resolve("wal")));
        Run forced = run("--force", "--out", out.toString(), input.toString());
        assertEquals(0, forced.exit(), forced.err());
        try (Stream<Path> s = Files.list(out)) {
            List<String> names = s.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(4, names.size(), "the new pair and the old pair, kept under one suffix; no lock file: " + names);
            String suffix = names.stream().filter(n -> n.startsWith("wal.broken.")).findFirst().orElseThrow().substring("wal".length());
            assertTrue(forced.out().contains("  the old files are kept as wal" + suffix + " and leases.json" + suffix), forced.out());
            assertEquals("old", Files.readString(out.resolve("wal" + suffix)));
            assertEquals("old leases", Files.readString(out.resolve("leases.json" + suffix)));
            assertTrue(names.contains("wal") && names.contains("leases.json"), names.toString());
        }
        assertSameState(expected(Set.of(), Long.MAX_VALUE), replayClean(out.resolve("wal")));
    }

    @Test
    void oneRunAtATimePerOutputDirectory() throws Exception {
        Path input = Files.write(dir.resolve("input.wal"), clean);
        Path out = Files.createDirectories(dir.resolve("busy"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), out.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String said = new java.io.BufferedReader(new java.io.InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertTrue(said != null && said.startsWith("locked"), said);
            Run r = run("--out", out.toString(), input.toString());
            assertEquals(2, r.exit(), r.err());
            assertEquals("walrecover: another walrecover (pid " + holder.pid() + ") is writing into " + out.toAbsolutePath()
                    + ": wait for it to finish, or choose another --out\n", r.err());
            assertFalse(Files.exists(out.resolve("wal")));
        } finally {
            holder.getOutputStream().close();
            holder.waitFor();
        }
        Run after = run("--out", out.toString(), input.toString());
        assertEquals(0, after.exit(), after.err());
        assertSameState(expected(Set.of(), Long.MAX_VALUE), replayClean(out.resolve("wal")));
    }

    @Test
    void aReportThatCannotBeWrittenIsRefusedBeforeAnyWork() throws Exception {
        Path input = Files.write(dir.resolve("input.wal"), clean);
        Path out = dir.resolve("out-report");
        Path nowhere = dir.resolve("no-such-dir").resolve("r.json");
        Run r = run("--report", nowhere.toString(), "--out", out.toString(), input.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("walrecover: --report " + nowhere + ": no such directory " + nowhere.getParent() + "\n", r.err());
        assertFalse(Files.exists(out), "nothing written");
        Run isDir = run("--report", dir.toString(), "--out", out.toString(), input.toString());
        assertEquals(2, isDir.exit(), isDir.err());
        assertEquals("walrecover: --report " + dir + ": is a directory\n", isDir.err());
        Path ok = dir.resolve("r.json");
        assertEquals(0, run("--report", ok.toString(), "--out", out.toString(), input.toString()).exit());
        assertTrue(Files.readString(ok).contains("\"schema\":\"walkit.walrecover/v1\""));
    }

    @Test
    void aLongListOfDroppedTransactionsIsCountedInTheText() throws Exception {
        Path input = Files.write(dir.resolve("input.wal"), clean);
        Run r = run("--dry-run", "--policy", "point-in-time", "--to-revision", "1", input.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().filter(l -> l.startsWith("  dropped transaction at")).toList();
        assertEquals(SimplePrinter.HUMAN_DROPPED, lines.size(), r.out());
        long dropped = transactions.size() - 1;
        assertTrue(r.out().contains("; dropped " + String.format("%,d", dropped) + "\n"), r.out());
        assertTrue(r.out().contains("  … and " + String.format("%,d", dropped - SimplePrinter.HUMAN_DROPPED)
                + " more dropped transaction(s) (the JSON report, -w json or --report FILE, lists the first 10,000)\n"), r.out());
        Run json = run("--dry-run", "--policy", "point-in-time", "--to-revision", "1", "-w", "json", input.toString());
        assertTrue(json.out().contains("\"dropped_transactions\":" + dropped), json.out().substring(0, Math.min(400, json.out().length())));
    }

    @Test
    void anOutThatIsAFileIsAUsageErrorAndTheFileIsKept() throws Exception {
        Path input = Files.write(dir.resolve("input.wal"), clean);
        Path file = Files.writeString(dir.resolve("not-a-dir"), "keep me");
        for (String force : new String[] {"--dry-run", "--force", "--policy=salvage"}) {
            Run r = run(force, "--out", file.toString(), input.toString());
            if (force.equals("--dry-run")) {
                assertEquals(0, r.exit(), r.err()); // writes nothing, so --out is not looked at
                continue;
            }
            assertEquals(2, r.exit(), r.err());
            assertEquals("walrecover: " + file + " exists and is not a directory: --out names the output data directory\n", r.err());
            assertEquals("keep me", Files.readString(file));
        }
    }

    @Test
    void anUnwritableOutSaysWhy() throws Exception {
        Path input = Files.write(dir.resolve("input.wal"), clean);
        Path file = Files.writeString(dir.resolve("plain"), "x");
        Run r = run("--out", file.resolve("sub").toString(), input.toString());
        assertEquals(4, r.exit(), r.err());
        assertEquals("walrecover: " + file.resolve("sub") + ": Not a directory\n", r.err());
    }

    @Test
    void dryRunWritesNothingAndPreviewsTheLoss() throws Exception {
        int i = singleRecordTxnAtOrAfter(injector.recordCount() / 3);
        DamageInjector.Expected e = injector.apply(DamageInjector.Kind.CRC_MISMATCH, i, 1);
        Path input = Files.write(dir.resolve("wal"), e.log());
        Path out = dir.resolve("out");
        Path report = dir.resolve("r.json");
        Run r = run("--dry-run", "--policy", "point-in-time", "--out", out.toString(), "--report", report.toString(), input.toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(Files.exists(out));
        JsonNode rep = new ObjectMapper().readTree(report.toFile());
        assertTrue(rep.get("dropped_transactions").asLong() > 0);
        assertTrue(rep.get("loss").size() > 0, rep.toString());
        assertTrue(r.out().contains("would lose:"), r.out());
        // At most 20 lines of them, then the count of the rest; the JSON report lists them all.
        long loseLines = r.out().lines().filter(l -> l.startsWith("  would lose:")).count();
        int all = rep.get("loss").size();
        assertEquals(Math.min(20, all), loseLines, r.out());
        if (all > 20) assertTrue(r.out().contains("  … and " + String.format("%,d", all - 20) + " more key(s) that would lose a change"), r.out());
        assertTrue(all > 20, "the case shows the cap: " + all + " keys");

        Run json = run("--dry-run", "--policy", "point-in-time", "-w", "json", "--out", out.toString(), input.toString());
        assertEquals(rep, new ObjectMapper().readTree(json.out()), "-w json prints the report that --report writes");
        Run table = run("--dry-run", "--policy", "point-in-time", "-w", "table", "--out", out.toString(), input.toString());
        List<String> lines = table.out().lines().map(l -> l.replaceAll(" +", " ")).toList();
        assertTrue(lines.contains("| dropped transactions | " + rep.get("dropped_transactions").asLong() + " |"), table.out());
        JsonNode loss = rep.get("loss").get(0);
        assertTrue(lines.contains("| " + loss.get("change").asText() + " | " + loss.get("key").asText() + " | " + loss.get("revision").asLong() + " |"), table.out());
        assertFalse(Files.exists(out));
    }

    @Test
    void leasesJsonListsLeasesOfLiveKeys() throws Exception {
        Path input = Files.write(dir.resolve("wal"), clean);
        Path out = dir.resolve("out");
        assertEquals(0, run("--lease-ttl", "120", "--out", out.toString(), input.toString()).exit());
        JsonNode l = new ObjectMapper().readTree(out.resolve("leases.json").toFile());
        assertEquals(120, l.get("ttl_seconds").asLong());
        Set<Long> ids = new HashSet<>();
        long keys = 0;
        for (JsonNode n : l.get("leases")) {
            ids.add(n.get("id").asLong());
            keys += n.get("keys").asLong();
            assertEquals(120, n.get("ttl_seconds").asLong());
        }
        assertTrue(ids.size() > 0);
        assertTrue(l.get("next_lease_id").asLong() > ids.stream().mapToLong(Long::longValue).max().orElseThrow());
        long leased = expected(Set.of(), Long.MAX_VALUE).values().stream().filter(v -> !v.split("/")[3].equals("0")).count();
        assertEquals(leased, keys);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** CRC-32C of a file as the report gives it: eight hex digits. */
    static String crc32c(Path p) throws Exception {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(Files.readAllBytes(p));
        return String.format("%08x", c.getValue());
    }

    @Test
    void checksumSha256IsGivenOnRequest() throws Exception {
        Path in = Files.write(dir.resolve("in.wal"), clean);
        Path out = dir.resolve("out-sha");
        Run r = run("--checksum", "sha256", "-w", "json", "--out", out.toString(), in.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("sha256", j.get("output").get("checksum_algorithm").asText());
        assertEquals(sha256(out.resolve("wal")), j.get("output").get("checksum").asText());
        Run text = run("--out", dir.resolve("out-crc").toString(), in.toString());
        assertTrue(text.out().contains("bytes, crc32c " + crc32c(dir.resolve("out-crc/wal")) + ") and "), text.out());
        assertEquals(2, run("--checksum", "md5", "--out", dir.resolve("x").toString(), in.toString()).exit());
    }

    static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    @Test
    void anEtcdDbOrAKineDbIsRecoveredThroughItsFormTheReportSpeakingOfTheStore() throws Exception {
        Path db = Fixtures.path("etcd/snapshot.db");
        Run dry = run("--dry-run", "-w", "json", db.toString());
        assertEquals(0, dry.exit(), dry.err());
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dry.out());
        assertEquals("etcd-db", j.get("input").get("store").asText(), dry.out());
        assertEquals(db.toString(), j.get("input").get("path").asText(), "the account speaks of the db, not of its form");
        // By default, its own store: DIR/db, and no WAL beside it (EtcdDbRecoverTest has a real etcd serve it).
        Run own = run("--out", dir.resolve("own").toString(), db.toString());
        assertEquals(0, own.exit(), own.err());
        assertTrue(Files.isRegularFile(dir.resolve("own/db")) && Files.notExists(dir.resolve("own/wal")), own.out());
        // An existing DIR/db is never written over (without --force), as DIR/wal.
        Run again = run("--out", dir.resolve("own").toString(), db.toString());
        assertEquals(2, again.exit(), again.err());
        assertTrue(again.err().contains(dir.resolve("own/db") + " exists: choose an empty --out directory (or --force, which keeps it as db.broken.<timestamp>)"), again.err());
        // As the store's WAL: the db's live state at its revisions, verified and published.
        Path out = dir.resolve("as-wal");
        Run w = run("--out-format", "wal", "--out", out.toString(), db.toString());
        assertEquals(0, w.exit(), w.err());
        dev.walkit.format.replay.Replayer got = dev.walkit.format.replay.Replay.run(out).state();
        try (dev.walkit.format.pass.Pass.Form f = dev.walkit.format.pass.Pass.form(db)) {
            dev.walkit.format.replay.Replayer want = dev.walkit.format.replay.Replay.run(f.wal()).state();
            assertEquals(want.revision(), got.revision());
            assertEquals(want.keys().liveCount(), got.keys().liveCount());
            for (dev.walkit.format.replay.KeyState k : want.keys().sortedLive()) {
                dev.walkit.format.replay.KeyState g = got.keys().get(k.key());
                assertTrue(g != null && g.live() && g.modRevision() == k.modRevision() && g.createRevision() == k.createRevision()
                        && g.version() == k.version() && g.lease() == k.lease(), dev.walkit.format.KeyQuote.quote(k.key()));
            }
        }
        // kine's state.db: the same, its account kine's.
        Path kine = dir.resolve("state.db");
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(2, 200)).write(kine);
        Run k = run("--dry-run", "-w", "json", kine.toString());
        assertEquals(0, k.exit(), k.err());
        assertEquals("kine", new com.fasterxml.jackson.databind.ObjectMapper().readTree(k.out()).get("input").get("store").asText());
        Run bad = run("--out-format", "mysql", "--dry-run", kine.toString());
        assertEquals(2, bad.exit(), bad.err());
    }
}
