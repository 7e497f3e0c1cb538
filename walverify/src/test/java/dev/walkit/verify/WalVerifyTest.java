package dev.walkit.verify;

import dev.walkit.format.pass.Level;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PassReport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.format.Fixtures;
import dev.walkit.format.Flags;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WalVerifyTest {
    private static byte[] clean;
    private static DamageInjector injector;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate(@TempDir Path tmp) throws Exception {
        Path wal = tmp.resolve("wal");
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 256 << 10)).write(wal);
        clean = Files.readAllBytes(wal);
        injector = new DamageInjector(clean);
    }

    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(out);
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(new WalVerify(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    static Stream<Arguments> damage() {
        List<Arguments> out = new ArrayList<>();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            for (String where : new String[] {"first", "middle", "last"}) out.add(Arguments.of(k, where));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} at the {1} record")
    @MethodSource("damage")
    void everyDamageKindIsReportedExactly(DamageInjector.Kind kind, String where) throws Exception {
        int n = injector.recordCount();
        int i = switch (where) {
            case "first" -> 0;
            case "middle" -> n / 2;
            default -> n - 1;
        };
        DamageInjector.Expected e = injector.apply(kind, i, 3);
        Path wal = Files.write(dir.resolve("wal"), e.log());
        String before = sha256(wal);
        for (String level : new String[] {"decode", "semantic"}) {
            Run r = run("--json", "--level", level, wal.toString());
            JsonNode j = r.json();
            assertEquals(WalVerify.SCHEMA, j.get("schema").asText());
            List<String> got = new ArrayList<>();
            j.get("damage").forEach(d -> got.add(d.get("kind").asText() + "@" + d.get("offset").asLong() + "+" + d.get("length").asLong()));
            if (kind == DamageInjector.Kind.DUPLICATED_RECORD) {
                // No byte is damaged: a finding of the replay, which only the semantic level makes.
                assertEquals(List.of(), got, level);
                List<String> findings = new ArrayList<>();
                j.get("findings").forEach(d -> findings.add(d.get("kind").asText() + "@" + d.get("offset").asLong() + "+" + d.get("length").asLong()));
                boolean semantic = level.equals("semantic");
                assertEquals(semantic ? List.of(e.kind().label() + "@" + e.offset() + "+" + e.length()) : List.of(), findings, level);
                assertEquals(semantic ? 3 : 0, r.exit(), r.out());
                continue;
            }
            assertEquals(List.of(e.kind().label() + "@" + e.offset() + "+" + e.length()), got, level);
            int want = kind == DamageInjector.Kind.TORN_TAIL ? 1 : 3;
            if (kind == DamageInjector.Kind.TORN_TAIL && level.equals("semantic")) {
                // the torn record may close a multi-record transaction: then that transaction is incomplete, at the tail
                want = 1;
            }
            assertEquals(want, r.exit(), r.out());
            assertEquals(want, j.get("exit_code").asInt());
        }
        assertEquals(before, sha256(wal), "the input is never modified");
    }

    @Test
    void damageInsideATransactionMakesItIncomplete() throws Exception {
        int i = 0;
        while (!Flags.isTxnCont(clean[(int) injector.offset(i)])) i++;
        DamageInjector.Expected e = injector.apply(DamageInjector.Kind.CRC_MISMATCH, i + 1, 1);
        Path wal = Files.write(dir.resolve("wal"), e.log());
        Run r = run("--json", "--level", "semantic", wal.toString());
        JsonNode f = r.json().get("findings");
        assertTrue(f.size() >= 1, r.out());
        assertEquals("incomplete-transaction", f.get(0).get("kind").asText());
        assertEquals(injector.offset(i), f.get(0).get("offset").asLong());
        assertEquals(3, r.exit());
    }

    @Test
    void healthyLogExitsZero() throws Exception {
        Path wal = Files.write(dir.resolve("wal"), clean);
        for (String level : new String[] {"frame", "decode", "semantic"}) {
            Run r = run("--level", level, dir.toString());
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(r.out().contains("verdict: healthy"), r.out());
        }
        Run q = run("-q", wal.toString());
        assertEquals("", q.out());
        assertEquals(0, q.exit());
    }

    @Test
    void jsonlStreamsFindingsThenASummary() throws Exception {
        DamageInjector.Expected e = injector.apply(DamageInjector.Kind.GARBAGE_SPAN, 10, 2);
        Path wal = Files.write(dir.resolve("wal"), e.log());
        Run r = run("--jsonl", wal.toString());
        String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length, r.out());
        ObjectMapper m = new ObjectMapper();
        assertEquals("damage", m.readTree(lines[0]).get("type").asText());
        assertEquals("garbage-span", m.readTree(lines[0]).get("kind").asText());
        JsonNode sum = m.readTree(lines[1]);
        assertEquals("summary", sum.get("type").asText());
        assertEquals(1, sum.get("damage_count").asInt());
        assertEquals(3, r.exit());
    }

    @ParameterizedTest
    @ValueSource(strings = {"empty", "dir-without-wal", "sqlite", "random", "missing"})
    void notAWalExitsFourWithOneLine(String what) throws Exception {
        Path p = dir.resolve("input");
        switch (what) {
            case "empty" -> Files.write(p, new byte[0]);
            case "dir-without-wal" -> Files.createDirectory(p);
            case "sqlite" -> {
                byte[] b = new byte[8192];
                byte[] magic = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(magic, 0, b, 0, magic.length);
                Files.write(p, b);
            }
            case "random" -> {
                byte[] b = new byte[50_000];
                new java.util.Random(9).nextBytes(b);
                Files.write(p, b);
            }
            default -> { }
        }
        Run r = run(p.toString());
        assertEquals(4, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("walverify: "), r.err());
    }

    @Test
    void aFileThatGrowsWhileReadIsNoted() throws Exception {
        // A store appending while walverify reads: the record cut at the end is completed meanwhile.
        DamageInjector.Expected torn = injector.apply(DamageInjector.Kind.TORN_TAIL, 0, 1);
        Path wal = Files.write(dir.resolve("live.wal"), torn.log());
        PassReport r = Pass.read(wal, Level.DECODE, new Pass.Listener() {
            @Override
            public void damage(DamageLocator.Located d) {
                try {
                    Files.write(wal, Arrays.copyOfRange(clean, torn.log().length, clean.length), java.nio.file.StandardOpenOption.APPEND);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        assertEquals(torn.log().length, r.bytes());
        assertEquals(clean.length, r.grewTo());
        assertEquals("torn-tail", r.damage().get(0).span().kind().label(), "what was read is still reported as read");
        assertEquals("  note: the file grew to " + String.format("%,d", clean.length) + " bytes while it was read (is the store running?): only the first "
                + String.format("%,d", torn.log().length) + " bytes were verified, and a torn tail at their end may be a write in progress, not damage",
                SimplePrinter.grewNote(r));
        assertTrue(JsonPrinter.summary(r, ExitCode.TAIL_ONLY, true).contains("\"grew_to\":" + clean.length), "JSON names the new size");
        // A file that did not change has none.
        Path still = Files.write(dir.resolve("still.wal"), torn.log());
        PassReport s = Pass.read(still, Level.DECODE, null);
        assertEquals(-1, s.grewTo());
        assertTrue(JsonPrinter.summary(s, ExitCode.TAIL_ONLY, true).contains("\"grew_to\":null"));
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 30, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aFifoIsRefusedAtOnceNotWaitedOn() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Run r = run(fifo.toString());
        assertEquals(4, r.exit(), r.err());
        assertEquals("walverify: " + fifo + ": not a regular file (a FIFO, socket or device): give the WAL file itself, or a data directory\n", r.err());
    }

    @Test
    void aMissingInputSaysSo() {
        Path missing = dir.resolve("nope");
        Run r = run(missing.toString());
        assertEquals(4, r.exit());
        assertEquals("walverify: " + missing + ": no such file or directory\n", r.err());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("--level", "deep", "x").exit());
        assertEquals(2, run().exit());
        assertEquals(2, run("--json", "--jsonl", "x").exit());
        assertEquals(2, run("-w", "table", "--jsonl", "x").exit());
        Run both = run("--json", "-w", "table", "x");
        assertEquals(2, both.exit());
        assertEquals("walverify: --json and -w table exclude each other\n", both.err());
        Run yaml = run("-w", "yaml", "x");
        assertEquals(2, yaml.exit());
        assertTrue(yaml.err().startsWith("walverify: --write-out: 'yaml' is not an output format of this command (simple, json, table)"), yaml.err());
        Run html = run("-w", "html", "x");
        assertEquals(2, html.exit());
        assertTrue(html.err().startsWith("walverify: --write-out: 'html' is not an output format of this command (simple, json, table)"), html.err());
        Run help = run("--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("Exit codes:") && help.out().contains("only a torn tail"), help.out());
    }

    @Test
    void writeOutJsonIsJsonAndTableShowsTheDamageRows() throws Exception {
        Path wal = Fixtures.path("vectors/small-torn-tail/wal");
        Run json = run("-w", "json", wal.toString());
        assertEquals(run("--json", wal.toString()).out(), json.out(), "--json is -w json");
        JsonNode d = json.json().get("damage").get(0);
        Run table = run("-w", "table", wal.toString());
        assertEquals(1, table.exit());
        List<String> lines = table.out().lines().toList();
        assertTrue(lines.get(0).startsWith("+-") && lines.get(1).contains(" FIELD ") && lines.get(1).contains(" VALUE "), table.out());
        String row = "| torn-tail | " + d.get("offset").asLong() + " | " + d.get("length").asLong() + " |";
        assertTrue(lines.stream().anyMatch(l -> l.replaceAll(" +", " ").startsWith(row)), row + " in\n" + table.out());
        assertEquals("verdict: torn-tail (exit 1)", lines.get(lines.size() - 1));
    }

    @Test
    void versionNamesTheToolAndTheFormat() {
        for (String flag : new String[] {"--version", "-V"}) {
            Run r = run(flag);
            assertEquals(0, r.exit());
            assertTrue(r.out().startsWith("walverify ") && r.out().contains("WAL format v2"), r.out());
        }
    }

    @Test
    void generatesBashCompletion() {
        Run r = run("generate-completion");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("complete -F") && r.out().contains("--level") && r.out().contains("--jsonl"), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"small", "small-torn-tail", "small-compacted", "small-crc-range-bug"})
    void sharedVectorsMatchGoldenJson(String name) throws Exception {
        Path wal = Fixtures.path("vectors/" + name + "/wal");
        Run r = run("--json", "--level", "semantic", wal.toString());
        String got = r.out().strip().replace(wal.toString(), "WAL");
        Path golden = Fixtures.root().resolve("walverify/src/test/resources/golden/" + name + ".json");
        if (Boolean.getBoolean("golden.update")) Files.writeString(golden, got + "\n");
        assertEquals(Files.readString(golden).strip(), got);
    }

    @Test
    void frameLevelCountsEveryRecord() throws Exception {
        Path wal = Files.write(dir.resolve("wal"), clean);
        Run r = run("--json", "--level", "frame", wal.toString());
        assertEquals(injector.recordCount(), r.json().get("records").asInt());
        assertEquals(clean.length, r.json().get("bytes").asLong());
        assertTrue(injector.recordCount() > 100);
        assertTrue(RecordLayout.OVERHEAD > 0);
    }

    private static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }
}
