package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kine keeps no version. After its compaction removed a key's create row, the version counted from the rows kept is
 * not a fact: it is given as a lower bound and marked so (≥ in text, {@code version_lower_bound} in JSON), never as a
 * version 1 beside a create_revision below the mod_revision, which etcd could not have.
 */
class KineVersionTest {
    @TempDir
    Path dir;

    /** kine's compaction (v0.6.5's statement): superseded rows and deletes at or below {@code rev} go; compact_rev_key records it. */
    static void compact(Path db, long rev) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); PreparedStatement d = c.prepareStatement(
                "DELETE FROM kine WHERE id IN (SELECT kp.prev_revision FROM kine AS kp WHERE kp.name != 'compact_rev_key' AND kp.prev_revision != 0 AND kp.id <= ?"
                        + " UNION SELECT kd.id FROM kine AS kd WHERE kd.deleted != 0 AND kd.id <= ?)");
             PreparedStatement u = c.prepareStatement("UPDATE kine SET prev_revision = ? WHERE name = 'compact_rev_key'")) {
            d.setLong(1, rev);
            d.setLong(2, rev);
            d.executeUpdate();
            u.setLong(1, rev);
            u.executeUpdate();
        }
    }

    /** A key live at the end whose latest row at or below {@code rev} is an update (its create row compacted), not updated since. */
    static String[] updatedBefore(Path db, long rev) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                "SELECT CAST(name AS TEXT), id, create_revision FROM kine k WHERE id <= " + rev + " AND created = 0 AND deleted = 0 AND name LIKE '/registry/%'"
                        + " AND NOT EXISTS (SELECT 1 FROM kine l WHERE l.name = k.name AND l.id > k.id) ORDER BY id LIMIT 1")) {
            return r.next() ? new String[] {r.getString(1), r.getString(2), r.getString(3)} : null;
        }
    }

    @Test
    void aVersionKineCannotKnowIsALowerBoundMarkedAsOne() throws Exception {
        Path db = dir.resolve("state.db");
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(5, 1500));
        g.write(db);
        long c = g.revision() - 300;
        String[] before = updatedBefore(db, c); // before the compaction: its create row is still there
        assertNotNull(before);
        compact(db, c);
        String key = before[0];
        WalDoctorTest.Run text = WalDoctorTest.run("get", db.toString(), key);
        assertEquals(0, text.exit(), text.err());
        assertTrue(text.out().contains("create_revision: " + before[2] + "\nmod_revision: " + before[1] + "\nversion: \u22652 (a lower bound: "), text.out());
        JsonNode j = WalDoctorTest.run("get", db.toString(), key, "-w", "json").json().get("kvs").get(0);
        assertEquals(2, j.get("version").asLong());
        assertTrue(j.get("version_lower_bound").asBoolean());

        // No key is given version 1 with a create_revision below its mod_revision; the ones created since are exact.
        JsonNode all = WalDoctorTest.run("range", db.toString(), "/registry/", "--limit", "0", "-w", "json").json().get("kvs");
        int bounds = 0;
        for (JsonNode kv : all) {
            boolean bound = kv.has("version_lower_bound");
            long create = kv.get("create_revision").asLong();
            assertFalse(kv.get("version").asLong() == 1 && create != kv.get("mod_revision").asLong(), kv.toString());
            if (create > c) assertFalse(bound, kv.toString());
            if (bound) bounds++;
        }
        assertTrue(bounds > 0, "some keys' create rows were compacted");
    }
}
