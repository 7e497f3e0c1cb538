package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.Fixtures;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordEncoder;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WalDoctorTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(out);
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    static List<String> signatures(JsonNode j) {
        List<String> out = new ArrayList<>();
        j.get("signatures").forEach(s -> out.add(s.get("name").asText()));
        return out;
    }

    /** Findings of one kind past 20 are counted on the page of text, not printed one by one; JSON has them all. */
    @Test
    void findingsOfOneKindAreBoundedInTextAndWholeInJson() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        RecordEncoder enc = new RecordEncoder();
        for (int rev = 1; rev <= 30; rev++) log.writeBytes(enc.encode(KeyValue.delete(("/registry/x/" + rev).getBytes(StandardCharsets.UTF_8), rev)));
        Path wal = Files.write(dir.resolve("wal"), log.toByteArray());
        Run text = run("diagnose", wal.toString());
        assertEquals(20, text.out().lines().filter(l -> l.startsWith("  delete-of-absent-key at offset")).count(), text.out());
        assertTrue(text.out().contains("  … 10 more delete-of-absent-key finding(s) (-w json lists them all)\n"), text.out());
        assertEquals(30, run("diagnose", "-w", "json", wal.toString()).json().get("findings").size());
    }

    /**
     * Revisions lost in zeroed bytes, whose keys no byte names: the report says the window and the resources the ten
     * transactions on each side wrote, in text, JSON and the shell's damage.
     */
    @Test
    void aLostWindowIsNamedWithTheResourcesWrittenAroundIt() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        RecordEncoder enc = new RecordEncoder();
        long[] at = new long[31];
        for (int rev = 1; rev <= 30; rev++) {
            String res = rev <= 10 ? "pods" : rev <= 20 ? "configmaps" : "leases";
            at[rev] = log.size();
            log.writeBytes(enc.encode(KeyValue.put(("/registry/" + res + "/default/x-" + rev).getBytes(StandardCharsets.UTF_8), rev, rev, 1,
                    "{}".getBytes(StandardCharsets.UTF_8), 0)));
        }
        byte[] b = log.toByteArray();
        Arrays.fill(b, (int) at[15], (int) at[17], (byte) 0); // revisions 15 and 16, configmaps
        Path wal = Files.write(dir.resolve("wal"), b);
        String line = "revisions 15..16 (2) lost in the damaged bytes at offset " + String.format("%,d", at[15])
                + ": what they wrote cannot be read (beyond any key named above); written just before and after (10 transactions each side):"
                + " configmaps 8, leases 6, pods 6";
        Run r = run("diagnose", wal.toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.out().contains("\n  " + line + "\n"), r.out());
        JsonNode w = run("diagnose", "-w", "json", wal.toString()).json().get("lost_windows");
        assertEquals(1, w.size());
        assertEquals(15, w.get(0).get("from_revision").asLong());
        assertEquals(16, w.get(0).get("to_revision").asLong());
        assertEquals(at[15], w.get(0).get("offset").asLong());
        assertEquals("{\"configmaps\":8,\"leases\":6,\"pods\":6}", w.get(0).get("written_around").toString());
        assertTrue(run("damage", wal.toString()).out().contains(line + "\n"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"small", "small-torn-tail", "small-compacted", "small-crc-range-bug"})
    void diagnoseMatchesGolden(String name) throws Exception {
        Path wal = Fixtures.path("vectors/" + name + "/wal");
        Run r = run("diagnose", "--json", wal.toString());
        String got = r.out().strip().replace(wal.toString(), "WAL").replace(wal.getParent() + ".recovered", "DIR.recovered");
        Path golden = Fixtures.root().resolve("waldoctor/src/test/resources/golden/diagnose-" + name + ".json");
        if (Boolean.getBoolean("golden.update")) Files.writeString(golden, got + "\n");
        assertEquals(Files.readString(golden).strip(), got);
        int want = switch (name) {
            case "small", "small-compacted" -> 0;
            case "small-torn-tail" -> 1;
            default -> 3;
        };
        assertEquals(want, r.exit());
    }

    @Test
    void diagnoseWriteOutTableHasTheFactsAndTheDamageRow() throws Exception {
        Path wal = Fixtures.path("vectors/small-torn-tail/wal");
        JsonNode j = run("diagnose", "-w", "json", wal.toString()).json();
        JsonNode d = j.get("damage").get(0);
        Run t = run("diagnose", "-w", "table", wal.toString());
        assertEquals(1, t.exit());
        List<String> lines = t.out().lines().map(l -> l.replaceAll(" +", " ")).toList();
        assertTrue(lines.contains("| live keys | " + j.get("live_keys").asLong() + " |"), t.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("| torn-tail | " + d.get("offset").asLong() + " | " + d.get("length").asLong() + " |")), t.out());
        assertEquals("verdict: torn tail only (exit 1)", lines.get(lines.size() - 1));
    }

    @Test
    void oneShotCommandsSayWhichFormatsTheyHave() throws Exception {
        String wal = Fixtures.path("vectors/small/wal").toString();
        Run stats = run("stats", "-w", "table", wal);
        assertEquals(2, stats.exit());
        assertEquals("waldoctor stats: -w table is not supported here (simple)\n", stats.err());
        Run get = run("get", "-w", "json", wal, "/registry/x");
        assertEquals("waldoctor get: key not found: /registry/x\n", get.err());
        assertEquals(1, get.exit());
    }

    @Test
    void rangeAndHistoryAsJsonAndTable() throws Exception {
        String wal = Fixtures.path("vectors/small/wal").toString();
        Run keys = run("range", wal, "/registry/configmaps/", "--keys-only");
        List<String> want = keys.out().lines().filter(l -> l.startsWith("/")).toList();
        assertTrue(want.size() >= 2, keys.out());
        JsonNode j = run("range", "-w", "json", wal, "/registry/configmaps/").json();
        List<String> got = new ArrayList<>();
        j.get("kvs").forEach(k -> got.add(k.get("key").asText()));
        assertEquals(want, got);
        assertEquals(want.size(), j.get("count").asInt());
        assertFalse(j.get("more").asBoolean());
        JsonNode limited = run("range", "-w", "json", wal, "/registry/configmaps/", "--limit", "1").json();
        assertEquals(1, limited.get("count").asInt());
        assertTrue(limited.get("more").asBoolean());

        JsonNode h = run("history", "--json", wal, "/registry/configmaps/ns0/cm-0").json();
        List<Long> revs = new ArrayList<>();
        h.get("kvs").forEach(e -> revs.add(e.get("mod_revision").asLong()));
        List<Long> simple = run("history", wal, "/registry/configmaps/ns0/cm-0").out().lines().filter(l -> l.startsWith("rev "))
                .map(l -> Long.parseLong(l.split("\\s+")[1])).toList();
        assertEquals(simple, revs);
        assertTrue(revs.contains(134L) && revs.contains(203L), revs.toString());
        Run t = run("history", "-w", "table", wal, "/registry/configmaps/ns0/cm-0");
        assertEquals(0, t.exit(), t.err());
        assertTrue(t.out().lines().map(l -> l.replaceAll(" +", " ")).anyMatch(l -> l.startsWith("| /registry/configmaps/ns0/cm-0 | PUT | 203 | 134 |")), t.out());
    }

    @Test
    void recognisesTheCrcRangeBugAndPointsToTheFlag() throws Exception {
        JsonNode j = run("diagnose", "--json", Fixtures.path("vectors/small-crc-range-bug/wal").toString()).json();
        assertEquals(List.of("crc-range-bug"), signatures(j));
        assertTrue(j.get("next").get(0).asText().startsWith("walrecover --accept-crc payload-only"), j.get("next").toString());
    }

    @Test
    void theRevisionCountsAddUpAndDiagnoseAndTheShellSayTheSame() throws Exception {
        DamageInjector inj = new DamageInjector(new K8sWalGenerator(K8sWalGenerator.Options.of(8, 256 << 10)).bytes());
        // A bad header in the middle: the bytes up to the next valid record are gone, and with them a transaction
        // or its closing record (then it is read in part and dropped).
        Path wal = Files.write(dir.resolve("wal"), inj.apply(DamageInjector.Kind.BAD_HEADER, inj.recordCount() / 2, 1).log());
        JsonNode rev = run("diagnose", "-w", "json", wal.toString()).json().get("revisions");
        long span = rev.get("last").asLong() - rev.get("first").asLong() + 1;
        assertEquals(span, rev.get("applied").asLong() + rev.get("dropped").asLong() + rev.get("damaged_up_to").asLong() + rev.get("skipped").asLong(),
                rev.toString());
        assertTrue(rev.get("dropped").asLong() + rev.get("damaged_up_to").asLong() >= 1, "the damage cost a revision: " + rev);
        String line = String.format("revisions %d..%d: %,d applied, %,d dropped (read, not applied), up to %,d in damaged bytes, %,d skipped (gaps the format allows)",
                rev.get("first").asLong(), rev.get("last").asLong(), rev.get("applied").asLong(), rev.get("dropped").asLong(),
                rev.get("damaged_up_to").asLong(), rev.get("skipped").asLong());
        assertTrue(run("diagnose", wal.toString()).out().contains("== what it costs\n  " + line + "\n"), "diagnose says it");
        assertTrue(run("stats", wal.toString()).out().contains(line + "\n"), "the shell's stats says the same");
    }

    @Test
    void recognisesTornTailZeroBlockDuplicatedTailAndLeftoverCompaction() throws Exception {
        byte[] clean = new K8sWalGenerator(K8sWalGenerator.Options.of(8, 128 << 10)).bytes();
        DamageInjector inj = new DamageInjector(clean);

        Path torn = Files.createDirectories(dir.resolve("torn"));
        Files.write(torn.resolve("wal"), inj.apply(DamageInjector.Kind.TORN_TAIL, 0, 1).log());
        Run t = run("diagnose", "--json", torn.toString());
        assertEquals(1, t.exit());
        assertEquals(List.of("torn-tail-after-power-loss"), signatures(t.json()));
        assertTrue(t.json().get("next").get(0).asText().contains("--policy tolerate-tail"));

        Path zero = Files.createDirectories(dir.resolve("zero"));
        Files.write(zero.resolve("wal"), inj.apply(DamageInjector.Kind.ZERO_BLOCK, inj.recordCount() / 2, 1).log());
        Files.write(zero.resolve("wal.compact"), new byte[10]);
        Run z = run("diagnose", "--json", zero.toString());
        assertEquals(3, z.exit());
        assertEquals(List.of("zero-filled-block", "leftover-compaction"), signatures(z.json()));

        Path dup = Files.createDirectories(dir.resolve("dup"));
        byte[] tail = Arrays.copyOfRange(clean, (int) inj.offset(inj.recordCount() - 3), clean.length);
        byte[] both = Arrays.copyOf(clean, clean.length + tail.length);
        System.arraycopy(tail, 0, both, clean.length, tail.length);
        Files.write(dup.resolve("wal"), both);
        Run d = run("diagnose", "--json", dup.toString());
        assertEquals(3, d.exit());
        assertTrue(signatures(d.json()).contains("duplicated-tail"), d.out());
    }

    @Test
    void truncatedSnapshotIsRecognised() throws Exception {
        RecordEncoder enc = new RecordEncoder();
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(enc.encode(RecordEncoder.snapshotMarker(50, 3)));
        b.writeBytes(enc.encode(KeyValue.put("/registry/a".getBytes(StandardCharsets.UTF_8), 3, 40, 2, new byte[] {1}, 0).withFlags(4)));
        b.writeBytes(enc.encode(KeyValue.put("/registry/b".getBytes(StandardCharsets.UTF_8), 60, 60, 1, new byte[] {1}, 0)));
        Path wal = Files.write(dir.resolve("wal"), b.toByteArray());
        Run r = run("diagnose", "--json", wal.toString());
        assertEquals(3, r.exit());
        assertEquals(List.of("truncated-snapshot"), signatures(r.json()));
        assertEquals(50, r.json().get("compact_revision").asLong());
    }

    @Test
    void oneShotCommandsShareTheTable() throws Exception {
        Path wal = Fixtures.path("vectors/small/wal");
        Run g = run("get", wal.toString(), "/registry/configmaps/ns0/cm-0", "--json");
        assertEquals(0, g.exit(), g.err());
        JsonNode kv = g.json().get("kvs").get(0);
        assertEquals("walkit.waldoctor.kv/v1", g.json().get("schema").asText());
        assertEquals(203, kv.get("mod_revision").asLong());
        assertEquals(134, kv.get("create_revision").asLong());
        Run old = run("get", wal.toString(), "/registry/configmaps/ns0/cm-0", "--rev", "150");
        assertEquals(0, old.exit(), old.out() + old.err());
        assertTrue(old.out().contains("mod_revision: 134"), old.out());
        Run missing = run("get", wal.toString(), "/registry/nope");
        assertEquals(1, missing.exit());
        // A wrong command line is a usage error (2), not "not found" (1).
        Run noKey = run("get", wal.toString());
        assertEquals(2, noKey.exit(), noKey.out() + noKey.err());
        assertEquals("waldoctor get: usage: get KEY [--rev R] [-o json|yaml] [--prefix|--from-key] [--print-value-only]", noKey.err().strip(),
                "errors on stderr, one prefix");
        assertEquals(2, run("history", wal.toString(), "a", "b").exit());
        assertEquals(2, run("get", wal.toString(), "/k", "--rev").exit());
        assertTrue(missing.err().contains("waldoctor get: key not found"), missing.err());
        Run h = run("history", wal.toString(), "/registry/configmaps/ns0/cm-0");
        assertEquals(0, h.exit());
        assertTrue(h.out().contains("rev 134") && h.out().contains("rev 203") && h.out().contains("prev_kv: rev 134"), h.out());
        Run help = run("get", "--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("(In the shell: get KEY [--rev R]"), help.out());
    }

    @Test
    void compactedRevisionsAreRefused() throws Exception {
        Path wal = Fixtures.path("vectors/small-compacted/wal");
        Run r = run("get", wal.toString(), "/registry/configmaps/ns0/cm-0", "--rev", "100");
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("waldoctor get: ") && r.err().contains("compacted"), r.err());
    }

    @Test
    void secretsAreRedactedUnlessAsked() throws Exception {
        RecordEncoder enc = new RecordEncoder();
        byte[] key = "/registry/secrets/default/token".getBytes(StandardCharsets.UTF_8);
        Path wal = Files.write(dir.resolve("wal"), enc.encode(KeyValue.put(key, 1, 1, 1, "hunter2".getBytes(StandardCharsets.UTF_8), 0)));
        Run hidden = run("get", wal.toString(), "/registry/secrets/default/token");
        assertTrue(hidden.out().contains("<redacted") && !hidden.out().contains("hunter2"), hidden.out());
        Run shown = run("get", "--show-secrets", wal.toString(), "/registry/secrets/default/token");
        assertTrue(shown.out().contains("hunter2"), shown.out());
    }

    @Test
    void hexdumpRedactsASecretsValueBytesUnlessAsked() throws Exception {
        RecordEncoder enc = new RecordEncoder();
        byte[] cm = enc.encode(KeyValue.put("/registry/configmaps/a".getBytes(StandardCharsets.UTF_8), 1, 1, 1, "visible".getBytes(StandardCharsets.UTF_8), 0));
        byte[] secret = enc.encode(KeyValue.put("/registry/secrets/default/token".getBytes(StandardCharsets.UTF_8), 2, 2, 1,
                "hunter2".getBytes(StandardCharsets.UTF_8), 0));
        byte[] log = java.nio.ByteBuffer.allocate(cm.length + secret.length).put(cm).put(secret).array();
        Path wal = Files.write(dir.resolve("wal"), log);
        // From the middle of the first record: the walk starts at its transaction, the second record's value is hidden.
        Run hidden = run("hexdump", wal.toString(), "3", Integer.toString(log.length - 3));
        assertEquals(0, hidden.exit(), hidden.err());
        assertFalse(hidden.out().contains("hunt") || hidden.out().contains("er2") || hidden.out().contains("68 75 6e 74"), hidden.out());
        assertTrue(hidden.out().contains("** ** **"), hidden.out());
        assertTrue(hidden.out().contains("|visible") || hidden.out().contains("visible"), "other values are shown: " + hidden.out());
        assertTrue(hidden.out().contains("(7 byte(s) of /registry/secrets/ values shown as **: --show-secrets to show them)"), hidden.out());
        Run shown = run("hexdump", "--show-secrets", wal.toString(), "3", Integer.toString(log.length - 3));
        assertFalse(shown.out().contains("**") || shown.out().contains("--show-secrets to show them"), shown.out());
    }

    @Test
    void aMistypedSubcommandOrOptionGetsTheNearest() {
        Run r = run("shel", "x");
        assertEquals(2, r.exit());
        assertEquals("waldoctor: unknown command 'shel': did you mean 'shell'?\nTry 'waldoctor --help' for more information.\n", r.err());
        Run o = run("diagnose", "--write-ot", "json", "x");
        assertEquals(2, o.exit());
        assertTrue(o.err().startsWith("waldoctor diagnose: unknown option '--write-ot': did you mean '--write-out'?"), o.err());
    }

    @Test
    void completionKnowsTheCommandTable() {
        Run r = run("generate-completion");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("complete -F") && r.out().contains("diagnose") && r.out().contains("history"), r.out());
    }

    @Test
    void notAWalExitsFour() throws Exception {
        Path p = Files.write(dir.resolve("x"), new byte[0]);
        assertEquals(4, run("diagnose", p.toString()).exit());
        assertEquals(4, run("diagnose", dir.resolve("missing").toString()).exit());
    }
}
