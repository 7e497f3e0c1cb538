package dev.walkit.migrate;

import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A follow of kine never reads on from below kine's compaction (its rows there are gone): the compact revision is
 * read as the WAL form reads it (compact_rev_key's latest row, its name as text or as a blob).
 */
class KineFeedCompactionTest {
    private static Path compactedTo(Path dir, long revision, boolean blobName) throws Exception {
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(11, 300)).write(db);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE kine SET prev_revision = " + revision + " WHERE name = 'compact_rev_key'");
            if (blobName) s.executeUpdate("UPDATE kine SET name = CAST(name AS BLOB) WHERE name = 'compact_rev_key'");
        }
        return db;
    }

    @Test
    void aFollowFromBelowKinesCompactionIsRefusedAndFromAboveItGoesOn(@TempDir Path dir) throws Exception {
        for (boolean blob : new boolean[] {false, true}) {
            Path d = dir.resolve(blob ? "blob" : "text");
            java.nio.file.Files.createDirectories(d);
            Path db = compactedTo(d, 50, blob);
            try (KineFeed f = KineFeed.open(db)) {
                IOException e = assertThrows(IOException.class, () -> f.position(10, Long.MAX_VALUE));
                assertTrue(e.getMessage().contains("kine compacted its rows to revision 50, past revision 10"), e.getMessage());
                assertEquals(60, f.position(60, Long.MAX_VALUE), blob ? "name as a blob" : "name as text");
            }
        }
    }
}
