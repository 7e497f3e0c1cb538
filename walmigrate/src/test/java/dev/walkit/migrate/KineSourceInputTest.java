package dev.walkit.migrate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A kine source that is not a SQLite file (exit 4), or a damaged one (exit 3, as walverify says it): a line that says what it is; nothing written. */
class KineSourceInputTest {
    @Test
    void aSourceThatIsNoSqliteFileIsExitFourWithOneLine(@TempDir Path dir) throws Exception {
        // A directory (or a FIFO, a device) is named as such, a missing file as missing: before any copy is made.
        UnreachableTargetTest.Run d = UnreachableTargetTest.run("kine", "--sqlite", dir.toString(), "--dry-run");
        assertEquals(4, d.exit(), d.err());
        assertEquals("walmigrate: " + dir + ": not a regular file (a FIFO, socket, device or directory)\n", d.err());
        Path missing = dir.resolve("state.db");
        UnreachableTargetTest.Run m = UnreachableTargetTest.run("kine", "--sqlite", missing.toString(), "--dry-run");
        assertEquals(4, m.exit(), m.err());
        assertEquals("walmigrate: " + missing + ": no such SQLite file\n", m.err());
    }

    @Test
    void aDamagedKineDbIsRefusedAndNothingIsWritten(@TempDir Path dir) throws Exception {
        // A zeroed leaf page of kine's table, early or late: nothing is migrated from a table SQLite cannot read whole.
        for (int fromEnd : new int[] {-1, 3}) {
            Path db = dir.resolve("state-" + fromEnd + ".db");
            new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(4, 3000)).write(db);
            java.util.List<Long> leaves = dev.walkit.testdata.KineDbGenerator.tableLeaves(db);
            long page = fromEnd < 0 ? leaves.get(2) : leaves.get(leaves.size() - 1 - fromEnd);
            dev.walkit.testdata.KineDbGenerator.overwritePage(db, page, new byte[4096]);
            Path out = dir.resolve("out-" + fromEnd);
            UnreachableTargetTest.Run r = UnreachableTargetTest.run("kine", "--sqlite", db.toString(), "--out-wal", out.toString());
            assertRefused(db, r);
            org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(out.resolve("wal")), "nothing written");
        }
    }

    /** The refusal's one line (exit 3, the verdict's code): the first damage walverify names, then what to run. */
    static void assertRefused(Path db, UnreachableTargetTest.Run r) {
        assertEquals(3, r.exit(), r.out() + r.err());
        String line = r.err().strip();
        org.junit.jupiter.api.Assertions.assertTrue(line.startsWith("walmigrate: " + db + ": the kine state.db is damaged (")
                && line.endsWith("): nothing copied; `waldoctor diagnose " + db + "` lists the damage") && !line.contains("\n"), r.err());
    }

    /**
     * Three leaf pages of kine's table overwritten with a copy of another leaf: SQLite's query of the live set finds
     * no row for the ids those pages held and answered without an error, so the keys were dropped and the run was
     * "done" (exit 0) while walverify called the same db damaged. Every output refuses it now, as walverify judges it.
     */
    @Test
    void tablePagesOverwrittenByAnotherLeafAreRefusedNotDropped(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("state.db");
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(7, 3000)).write(db);
        java.util.List<Long> leaves = dev.walkit.testdata.KineDbGenerator.tableLeaves(db);
        org.junit.jupiter.api.Assertions.assertTrue(leaves.size() > 10, leaves.toString());
        byte[] donor = dev.walkit.testdata.KineDbGenerator.page(db, leaves.get(1));
        for (int i : new int[] {leaves.size() / 3, leaves.size() / 2, 2 * leaves.size() / 3}) {
            dev.walkit.testdata.KineDbGenerator.overwritePage(db, leaves.get(i), donor);
        }
        // The defect's own evidence: SQLite's live-set query answers, with fewer keys, and no error.
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT count(*) FROM (" + dev.walkit.format.kine.KineLive.LIVE_SET + ")")) {
            org.junit.jupiter.api.Assertions.assertTrue(r.next());
        }
        for (String[] out : new String[][] {{"--out-wal", "wal"}, {"--out-kine", "state.db"}}) {
            Path o = dir.resolve("out" + out[0]);
            UnreachableTargetTest.Run r = UnreachableTargetTest.run("kine", "--sqlite", db.toString(), out[0], o.toString());
            assertRefused(db, r);
            org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(o.resolve(out[1])), "nothing written");
        }
        UnreachableTargetTest.Run dry = UnreachableTargetTest.run("kine", "--sqlite", db.toString(), "--dry-run");
        assertRefused(db, dry);
    }
}
