package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shell's commands one-shot, with etcdctl's habits: errors on stderr with one prefix in every format, options
 * anywhere on the line, the same options in every format, and the nearest name for a mistyped command or option.
 */
class OneShotTest {
    static final String S = "../testdata/fixtures/sample";
    static final String KEY = "/registry/configmaps/ns0/cm-0";
    /** The sample is damaged: every answer of its state is followed by this line on stderr, and exits 3. */
    static final String DAMAGED = "waldoctor get: ../testdata/fixtures/sample is damaged (2 damaged span(s), 0 finding(s), 0 transaction(s) dropped, "
            + "up to 1 revision(s) in damaged bytes, 2 key(s) whose latest state is uncertain): this answer lacks what the damage held; "
            + "`waldoctor diagnose ../testdata/fixtures/sample` for the report";

    @Test
    void errorsGoToStderrWithOnePrefixInEveryFormat() {
        for (String[] w : new String[][] {{}, {"-w", "json"}, {"-w", "table"}}) {
            String[] args = new String[3 + w.length];
            args[0] = "get";
            args[1] = S;
            args[2] = "/nope";
            System.arraycopy(w, 0, args, 3, w.length);
            WalDoctorTest.Run r = WalDoctorTest.run(args);
            assertEquals(3, r.exit(), "not found in a damaged store: the damage may have held it");
            boolean json = w.length > 0 && w[1].equals("json");
            // -w json: a document that holds no key, as etcdctl get -w json gives one; text and table: nothing.
            if (json) assertTrue(r.out().contains("\"kvs\":[],\"count\":0,\"more\":false"), r.out());
            else assertEquals("", r.out(), String.join(" ", w));
            assertEquals("waldoctor get: key not found: /nope", r.err().lines().findFirst().orElseThrow(), String.join(" ", w));
            assertTrue(r.err().lines().skip(1).findFirst().orElseThrow().startsWith(DAMAGED), r.err());
        }
    }

    @Test
    void anUnreadableInputIsOneLineNamingTheToolAndItsCommand() {
        for (String[] w : new String[][] {{"diagnose", "/nonexistent"}, {"stats", "/nonexistent"}, {"get", "/nonexistent", KEY}, {"shell", "/nonexistent"}}) {
            WalDoctorTest.Run r = WalDoctorTest.run(w);
            assertEquals(4, r.exit(), String.join(" ", w));
            assertEquals("waldoctor " + w[0] + ": /nonexistent: no such file or directory", r.err().strip(), String.join(" ", w));
        }
    }

    @Test
    void optionsGoAnywhere() {
        WalDoctorTest.Run before = WalDoctorTest.run("get", "--rev", "1000", S, KEY);
        WalDoctorTest.Run after = WalDoctorTest.run("get", S, KEY, "--rev", "1000");
        assertEquals(3, before.exit(), before.err());
        assertEquals(DAMAGED, before.err().strip());
        assertEquals(after.out(), before.out());
        assertTrue(before.out().contains("mod_revision: 589"), before.out());
        assertEquals(3, WalDoctorTest.run("get", "--rev=1000", S, KEY).exit());
    }

    @Test
    void historyTakesLimitInEveryFormat() throws Exception {
        WalDoctorTest.Run text = WalDoctorTest.run("history", S, KEY, "--limit", "2");
        assertEquals(3, text.exit(), text.err());
        assertEquals(DAMAGED.replace("waldoctor get:", "waldoctor history:"), text.err().strip());
        assertEquals(2, text.out().lines().filter(l -> l.startsWith("rev ")).count(), text.out());
        WalDoctorTest.Run json = WalDoctorTest.run("history", S, KEY, "--limit", "2", "-w", "json");
        assertEquals(3, json.exit(), json.err());
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertEquals(2, j.get("kvs").size());
        assertEquals(2042, j.get("kvs").get(0).get("mod_revision").asLong(), "the latest two, as the text shows");
        assertEquals(2071, j.get("kvs").get(1).get("mod_revision").asLong());
        assertTrue(j.get("more").asBoolean());
    }

    @Test
    void aMistypedNameGetsTheNearest() {
        WalDoctorTest.Run gte = WalDoctorTest.run("gte", S, "/x");
        assertEquals(2, gte.exit());
        assertTrue(gte.err().startsWith("waldoctor: unknown command 'gte': did you mean 'get'?"), gte.err());
        WalDoctorTest.Run limt = WalDoctorTest.run("range", S, "/registry/", "--limt", "2");
        assertEquals(2, limt.exit());
        assertTrue(limt.err().contains("unknown option --limt (did you mean --limit?)"), limt.err());
    }

    /** From an offset inside a record, records says so and lists from the record's start: no phantom garbage-span. */
    @Test
    void recordsFromInsideARecordStartsAtIt() {
        WalDoctorTest.Run r = WalDoctorTest.run("records", S, "--from", "784000", "--limit", "3");
        assertEquals(0, r.exit(), r.err());
        String first = r.out().lines().findFirst().orElseThrow();
        assertTrue(first.matches("\\(offset 784000 is inside the record at \\d+: listing from there\\)"), r.out());
        long at = Long.parseLong(first.replaceAll(".* at (\\d+):.*", "$1"));
        assertTrue(at < 784000 && r.out().lines().skip(1).findFirst().orElseThrow().startsWith("@" + at + " "), r.out());
        assertTrue(!r.out().contains("garbage-span"), "the sample's only damage there is the crc mismatch at 784,241: " + r.out());
        // At a record's own start: no note.
        WalDoctorTest.Run exact = WalDoctorTest.run("records", S, "--from", String.valueOf(at), "--limit", "1");
        assertTrue(exact.out().startsWith("@" + at + " "), exact.out());
    }

    /** A record whose CRC fails usually keeps its key: the damage names it among the affected keys, in every view. */
    @Test
    void theKeyOfACrcMismatchedRecordIsNamed() throws Exception {
        dev.walkit.format.WalFile f = dev.walkit.format.WalFile.open(java.nio.file.Path.of(S, "wal"), dev.walkit.format.RecordLayout.DEFAULT_MAX_REC_LEN);
        String key;
        try (f) {
            key = dev.walkit.cli.KeyText.quote(dev.walkit.format.account.WalKeys.recordAt(f, 784241).key()); // the sample's crc-mismatch
        }
        JsonNode d = new ObjectMapper().readTree(WalDoctorTest.run("diagnose", "-w", "json", S).out());
        java.util.List<String> affected = new java.util.ArrayList<>();
        d.get("affected_keys").forEach(k -> affected.add(k.asText()));
        assertTrue(affected.contains(key), key + " in " + affected);
        WalDoctorTest.Run text = WalDoctorTest.run("diagnose", S);
        assertTrue(text.out().contains("legible in a damaged record") && text.out().contains(key), text.out());
    }
}
