package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.replay.Replayer;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.recover.WalRecover;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * More rule findings than a report lists (12,000 records whose version breaks §5's rule, each applied as stored and
 * found), then a transaction left open mid-log: every tool drops and names it, tolerate-tail refuses the log as it
 * refuses the same transaction in a short one, and the counts are of every finding, the listing saying how many it
 * left out.
 */
class FindingsPastTheCapTest {
    static final int BROKEN = 12_000;
    static final long OPEN = BROKEN + 1;

    @TempDir
    static Path dir;

    static Path wal;

    @BeforeAll
    static void log() throws Exception {
        LogBuilder b = new LogBuilder();
        for (int i = 1; i <= BROKEN; i++) { // a new key at version 3: a rule broken, the record applied as stored
            b.add(KeyValue.put(("/registry/configmaps/ns/cm-" + i).getBytes(StandardCharsets.UTF_8), i, i, 3, "{}".getBytes(StandardCharsets.UTF_8), 0));
        }
        // A transaction left open: its first record says TXN_CONT, the next record is of the next revision.
        b.add(KeyValue.put("/registry/pods/ns/open".getBytes(StandardCharsets.UTF_8), OPEN, OPEN, 1, "{}".getBytes(StandardCharsets.UTF_8), 0)
                .withFlags(Flags.TXN_CONT));
        for (long r = OPEN + 1; r <= OPEN + 10; r++) {
            b.add(KeyValue.put(("/registry/pods/ns/p-" + r).getBytes(StandardCharsets.UTF_8), r, r, 1, "{}".getBytes(StandardCharsets.UTF_8), 0));
        }
        wal = LogBuilder.write(dir, "wal", b.bytes());
    }

    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(out);
        }
    }

    static Run run(String tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = switch (tool) {
            case "walverify" -> Cli.run(new WalVerify(), new PrintWriter(out), new PrintWriter(err), args);
            case "walrecover" -> Cli.run(new WalRecover(), new PrintWriter(out), new PrintWriter(err), args);
            case "walmigrate" -> Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
            default -> WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
        };
        return new Run(exit, out.toString(), err.toString());
    }

    static List<Long> dropped(JsonNode d) {
        List<Long> out = new ArrayList<>();
        d.get("dropped_transactions").forEach(x -> out.add(x.get("revision").asLong()));
        return out;
    }

    @Test
    void theOpenTransactionIsDroppedAndNamedByEveryToolPastTheCap() throws Exception {
        Run v = run("walverify", "--level", "semantic", "-w", "json", wal.toString());
        assertEquals(3, v.exit(), v.err());
        JsonNode j = v.json();
        assertEquals(List.of(OPEN), dropped(j), "walverify: the open transaction dropped");
        assertEquals(Replayer.MAX_FINDINGS_KEPT + 1, j.get("findings").size(), "the listing: the cap's rule findings and the incomplete transaction");
        assertEquals(BROKEN + 1 - j.get("findings").size(), j.get("findings_left_out").asLong(), "it says how many it left out");
        assertTrue(j.toString().contains("\"kind\":\"incomplete-transaction\""), "the incomplete transaction is listed past the cap");

        JsonNode first = j.get("findings").get(0); // a rule finding names its key, in JSON and in its detail
        assertEquals("version-create-revision-mismatch", first.get("kind").asText(), first.toString());
        assertEquals("/registry/configmaps/ns/cm-1", first.get("key").asText(), first.toString());
        assertEquals(java.util.Base64.getEncoder().encodeToString("/registry/configmaps/ns/cm-1".getBytes(StandardCharsets.UTF_8)), first.get("key_base64").asText());
        assertTrue(first.get("detail").asText().startsWith("key /registry/configmaps/ns/cm-1: PUT with create_revision 1, version 3"), first.toString());
        Run text = run("walverify", "--level", "semantic", wal.toString());
        assertTrue(text.out().contains("version-create-revision-mismatch at offset 0 (revision 1): key /registry/configmaps/ns/cm-1: PUT with create_revision 1, version 3"), text.out());

        Run jsonl = run("walverify", "--level", "semantic", "--jsonl", wal.toString());
        String summary = jsonl.out().lines().reduce((a, b) -> b).orElseThrow();
        assertEquals(BROKEN + 1, new ObjectMapper().readTree(summary).get("finding_count").asLong(), "the summary counts every finding: " + summary);

        Run d = run("waldoctor", "diagnose", "-w", "json", wal.toString());
        assertEquals(3, d.exit(), d.err());
        assertEquals(List.of(OPEN), dropped(d.json()), "diagnose: the open transaction dropped");

        Run t = run("walrecover", "--policy", "tolerate-tail", "--dry-run", "--out", dir.resolve("out").toString(), wal.toString());
        assertEquals(3, t.exit(), "tolerate-tail refuses an incomplete transaction that is not at the tail: " + t.out() + t.err());
        assertTrue((t.out() + t.err()).contains("an incomplete transaction at offset"), t.out() + t.err());

        Run m = run("walmigrate", "wal", "--wal", wal.toString(), "--dry-run");
        assertEquals(3, m.exit(), "walmigrate refuses what walverify calls damaged: " + m.err());
        assertEquals(1, m.err().strip().lines().count(), m.err());
    }

    @Test
    void aShortLogWithTheSameOpenTransactionIsRefusedTheSameWay() throws Exception {
        LogBuilder b = LogBuilder.puts(5);
        b.add(KeyValue.put("/registry/pods/ns/open".getBytes(StandardCharsets.UTF_8), 6, 6, 1, "{}".getBytes(StandardCharsets.UTF_8), 0)
                .withFlags(Flags.TXN_CONT));
        b.add(KeyValue.put("/registry/pods/ns/p-7".getBytes(StandardCharsets.UTF_8), 7, 7, 1, "{}".getBytes(StandardCharsets.UTF_8), 0));
        Path shortLog = LogBuilder.write(dir, "short", b.bytes());
        Run t = run("walrecover", "--policy", "tolerate-tail", "--dry-run", "--out", dir.resolve("out-short").toString(), shortLog.toString());
        assertEquals(3, t.exit(), t.out() + t.err());
        Run v = run("walverify", "--level", "semantic", "-w", "json", shortLog.toString());
        assertEquals(List.of(6L), dropped(v.json()));
    }
}
