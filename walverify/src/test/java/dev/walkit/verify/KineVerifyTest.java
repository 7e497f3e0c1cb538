package dev.walkit.verify;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** walverify of kine's state.db (generated with kine's row shapes: creates, updates, deletes, leases, gap rows). */
class KineVerifyTest {
    @TempDir
    Path dir;

    @Test
    void aKineDbIsSniffedAndItsRowsReplayedByTheRules() throws Exception {
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 500)).write(db);
        byte[] before = Files.readAllBytes(db);
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", db.toString());
        JsonNode j = r.json();
        assertEquals("kine", j.get("store").asText(), r.out() + r.err());
        assertTrue(j.get("records").asLong() > 400, r.out());
        assertTrue(j.get("live_keys").asLong() > 0, r.out());
        assertEquals(0, j.get("store_damage").size(), r.out());
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(db)), "the source is never written");
        WalVerifyTest.Run text = WalVerifyTest.run(db.toString());
        assertTrue(text.out().startsWith(db + ": kine state.db (SQLite, "), text.out());
    }

    @Test
    void aKineDbWithNoRowOfDataIsHealthyAndEmpty() throws Exception {
        // Only kine's own compact_rev_key row: no revision to replay, which is no error.
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 0)).write(db);
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", db.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(0, r.json().get("live_keys").asLong());
        assertEquals("healthy", r.json().get("verdict").asText());
        WalVerifyTest.Run d = WalVerifyTest.run(db.toString());
        assertEquals(0, d.exit(), d.out() + d.err());
    }

    @Test
    void aRowThatBreaksTheRulesIsReportedAtItsRevisionWhereverTheRowsWereReadTo() throws Exception {
        // An update far into the history (past the rows read ahead on their own thread) marked created: a create of
        // a live key, whose create_revision is then not the key's. The light replay stops there; the rows are read
        // again and Replayer reports it, at that row's id.
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 12_000)).write(db);
        long id;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
             java.sql.Statement s = c.createStatement()) {
            try (java.sql.ResultSet r = s.executeQuery("SELECT id FROM kine WHERE created = 0 AND deleted = 0 AND id > 9000"
                    + " AND name NOT LIKE 'compact_rev_key%' AND name NOT LIKE 'gap-%' ORDER BY id LIMIT 1")) {
                assertTrue(r.next(), "an update past row 9000");
                id = r.getLong(1);
            }
            assertEquals(1, s.executeUpdate("UPDATE kine SET created = 1 WHERE id = " + id));
        }
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", db.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        JsonNode f = r.json().get("findings");
        assertEquals(1, f.size(), r.out());
        assertEquals("version-create-revision-mismatch", f.get(0).get("kind").asText(), r.out());
        assertEquals(id, f.get(0).get("revision").asLong(), r.out());
        assertTrue(r.json().get("records").asLong() > 9_500, "every row counted: " + r.out());
    }

    @Test
    void aDamagedPageOfTheTableIsDamageAndTheRowsPastItAreRead() throws Exception {
        // A leaf page of kine's table in the middle, zeroed: SQLite's read fails there; the rows before it and after
        // it are read (the read resumes past the page, found by seeks by id) and the lost ones are named by id.
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 6000)).write(db);
        long page;
        long rows;
        long maxId;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
             java.sql.Statement s = c.createStatement()) {
            try (java.sql.ResultSet r = s.executeQuery("SELECT pageno FROM dbstat WHERE name = 'kine' AND pagetype = 'leaf' ORDER BY pageno")) {
                java.util.List<Long> leaves = new java.util.ArrayList<>();
                while (r.next()) leaves.add(r.getLong(1));
                assertTrue(leaves.size() > 10, "a table of many leaves: " + leaves.size());
                page = leaves.get(leaves.size() / 2);
            }
            try (java.sql.ResultSet r = s.executeQuery("SELECT count(*), max(id) FROM kine WHERE name NOT LIKE 'compact_rev_key%' AND name NOT LIKE 'gap-%'")) {
                r.next();
                rows = r.getLong(1);
                maxId = r.getLong(2);
            }
        }
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.seek((page - 1) * 4096);
            f.write(new byte[4096]);
        }
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", db.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        JsonNode j = r.json();
        java.util.List<String> lost = new java.util.ArrayList<>();
        j.get("store_damage").forEach(n -> {
            if (n.asText().startsWith("SQLite could not read kine's rows")) lost.add(n.asText());
        });
        assertEquals(1, lost.size(), r.out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rows after id (\\d+) up to id (\\d+), where the read went on").matcher(lost.get(0));
        assertTrue(m.find(), lost.get(0));
        long after = Long.parseLong(m.group(1));
        long resumed = Long.parseLong(m.group(2));
        assertTrue(after < resumed && after > 0, lost.get(0));
        assertEquals(maxId, j.get("last_revision").asLong(), "read to the last row: " + r.out());
        long read = j.get("records").asLong();
        assertTrue(read < rows && read > rows - 200, "only the page's rows lost: " + read + " of " + rows);
        assertTrue(j.get("store_damage").get(0).asText().startsWith("SQLite quick_check"), r.out());
        assertTrue(!r.err().contains("Exception"), r.err());
    }

    @Test
    void whatSqliteFindsIsDamage() throws Exception {
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 2000)).write(db);
        long size = Files.size(db);
        assertTrue(size > 8 * 4096, "more than a few pages: " + size);
        // Zeros over the middle of the file: table and index pages SQLite no longer recognises.
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.seek(size / 2 / 4096 * 4096);
            f.write(new byte[4096 * 2]);
        }
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", db.toString());
        assertTrue(r.exit() == 3 || r.exit() == 4, r.out() + r.err());
        if (r.exit() == 3) {
            assertTrue(r.json().get("store_damage").get(0).asText().startsWith("SQLite quick_check"), r.out());
            WalVerifyTest.Run lines = WalVerifyTest.run("--jsonl", db.toString());
            assertTrue(lines.out().contains("\n{\"type\":\"store_damage\",\"store\":\"kine\",\"detail\":\"SQLite quick_check")
                    || lines.out().startsWith("{\"type\":\"store_damage\",\"store\":\"kine\",\"detail\":\"SQLite quick_check"), lines.out());
        }
        else assertTrue(r.err().contains(db + ": not a kine database"), r.err());
        assertTrue(!r.err().contains("Exception"), r.err());
    }
}
