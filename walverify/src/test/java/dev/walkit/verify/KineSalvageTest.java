package dev.walkit.verify;

import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A kine db SQLite refuses (20 bytes of its header overwritten, the table's root page zeroed, the file cut short by
 * two pages): its rows are read from its pages, named as read that way (damaged, exit 3), and at least as many as
 * sqlite3's {@code .recover} gets from the same file (a 3.44 shell: scripts/test builds it; Debian 12's 3.40 lacks
 * sqlite_dbpage).
 */
class KineSalvageTest {
    @TempDir
    Path dir;

    Path clean;
    long root;
    int pageSize;
    long rows;

    @BeforeEach
    void aKineDb() throws Exception {
        clean = dir.resolve("clean").resolve("state.db");
        Files.createDirectories(clean.getParent());
        new KineDbGenerator(KineDbGenerator.Options.of(3, 3000)).write(clean);
        long[] n = dev.walkit.testdata.SqliteFile.numbers(clean, "SELECT rootpage FROM sqlite_master WHERE name = 'kine'", "PRAGMA page_size",
                "SELECT count(*) FROM kine");
        root = n[0];
        pageSize = (int) n[1];
        rows = n[2];
    }

    Path damaged(String name, long at, byte[] bytes, long cutTo) throws Exception {
        Path d = dir.resolve(name).resolve("state.db");
        Files.createDirectories(d.getParent());
        Files.copy(clean, d);
        try (RandomAccessFile f = new RandomAccessFile(d.toFile(), "rw")) {
            if (bytes != null) {
                f.seek(at);
                f.write(bytes);
            }
            if (cutTo > 0) f.setLength(cutTo);
        }
        return d;
    }

    /** The rows walverify read, from its line "kine state.db (SQLite, N row(s)…": asserting the salvage line. */
    static long salvaged(Path db) {
        WalVerifyTest.Run r = WalVerifyTest.run(db.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("as sqlite3's \\.recover reads them: (\\d+) row\\(s\\) from").matcher(r.out());
        assertTrue(m.find(), r.out());
        return Long.parseLong(m.group(1));
    }

    /** The rows sqlite3 3.44's .recover gets from {@code db} (into kine or lost_and_found); -1 without that shell. */
    long recovered(Path db) throws Exception {
        String shell = System.getenv("WALKIT_SQLITE3_RECOVER");
        if (shell == null || !Files.isExecutable(Path.of(shell))) return -1;
        Path sql = db.resolveSibling("recover.sql");
        Process p = new ProcessBuilder(shell, db.toString(), ".recover").redirectOutput(sql.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        Path out = db.resolveSibling("recovered.db");
        Process load = new ProcessBuilder(shell, out.toString()).redirectInput(sql.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(load.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        long n = 0;
        for (String table : new String[] {"kine", "lost_and_found"}) {
            Process q = new ProcessBuilder(shell, out.toString(), "SELECT count(*) FROM " + table).redirectErrorStream(true).start();
            String text = new String(q.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            q.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
            if (text.matches("\\d+")) n += Long.parseLong(text);
        }
        return n;
    }

    /** {@code walkit} rows at least as many as .recover's; {@code recoverReads}: .recover gets rows from it too (else 0: header gone). */
    void atLeastRecover(Path db, long walkit, boolean recoverReads) throws Exception {
        long rec = recovered(db);
        assumeTrue(rec >= 0, "no sqlite3 3.44 shell (WALKIT_SQLITE3_RECOVER): scripts/test builds one; walkit read " + walkit + " rows");
        assertEquals(recoverReads, rec > 0, db + ": .recover read " + rec + " rows");
        assertTrue(walkit >= rec, db + ": walkit read " + walkit + " rows, .recover " + rec);
        // And at least its live keys: a key's latest row not a delete (kine's own rows aside), against walverify's count.
        if (rec == 0) return;
        String shell = System.getenv("WALKIT_SQLITE3_RECOVER");
        Process q = new ProcessBuilder(shell, db.resolveSibling("recovered.db").toString(), "SELECT count(*) FROM (SELECT name, deleted, max(id) FROM kine "
                + "GROUP BY name) WHERE deleted = 0 AND name NOT LIKE 'gap-%' AND name NOT IN ('compact_rev_key', 'compact_rev_key_apiserver')")
                .redirectErrorStream(true).start();
        String text = new String(q.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        q.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        long recLive = text.matches("\\d+") ? Long.parseLong(text) : 0;
        WalVerifyTest.Run v = WalVerifyTest.run("--level", "semantic", "-w", "json", db.toString());
        long live = v.json().get("live_keys").asLong();
        assertTrue(live >= recLive, db + ": walkit's live keys " + live + ", .recover's " + recLive);
    }

    @Test
    void aHeaderOverwrittenIsReadFromItsPages() throws Exception {
        Path db = damaged("header", 0, new byte[20], 0);
        long n = salvaged(db);
        assertEquals(rows, n, "every row: only the header was hit");
        atLeastRecover(db, n, true);
        byte[] junk = new byte[20];
        java.util.Arrays.fill(junk, (byte) 0x55);
        Path worse = damaged("header-55", 0, junk, 0); // SQLite's magic gone: .recover reads nothing at all
        assertEquals(rows, salvaged(worse));
        atLeastRecover(worse, rows, false);
    }

    @Test
    void theTablesRootPageZeroedIsReadFromItsLeaves() throws Exception {
        Path db = damaged("root", (root - 1) * pageSize, new byte[pageSize], 0);
        long n = salvaged(db);
        assertEquals(rows, n, "every row: the root holds none");
        atLeastRecover(db, n, true);
    }

    @Test
    void aFileCutShortKeepsTheRowsOfThePagesLeft() throws Exception {
        Path db = damaged("cut", 0, null, Files.size(clean) - 2L * pageSize);
        long n = salvaged(db);
        assertTrue(n > rows * 9 / 10 && n <= rows, n + " of " + rows);
        atLeastRecover(db, n, true);
    }

    /**
     * A table leaf zeroed in a db whose -wal holds the latest rows (as kine's always has one): SQLite reads around the
     * page (its rows are lost; the read names where), or the pages are read at the size the header and the -wal declare
     * (4 KiB; read at 8 KiB, a page and the start of the next read as rows too, and half the rows were lost), with the
     * -wal's frames over them: every row but the zeroed leaf's, and at least as many as .recover's.
     */
    @Test
    void aTableLeafZeroedBesideItsWalKeepsEveryOtherLeafsRows() throws Exception {
        Path db = dir.resolve("leaf").resolve("state.db");
        Files.createDirectories(db.getParent());
        new KineDbGenerator(new KineDbGenerator.Options(5, 3000, false, false, 300, 0, "")).write(db);
        Path wal = db.resolveSibling("state.db-wal");
        assertTrue(Files.size(wal) > 0, "the -wal holds rows");
        // Counted on a copy: closing the last connection to a db checkpoints its -wal away.
        Path copy = Files.createDirectories(dir.resolve("leaf-copy")).resolve("state.db");
        Files.copy(db, copy);
        Files.copy(wal, copy.resolveSibling("state.db-wal"));
        long[] counts = dev.walkit.testdata.SqliteFile.numbers(copy, "SELECT count(*) FROM kine",
                "SELECT count(*) FROM kine WHERE name NOT IN ('compact_rev_key', 'compact_rev_key_apiserver') AND name NOT LIKE 'gap-%'");
        long all = counts[0];
        long keys = counts[1];
        byte[] b = Files.readAllBytes(db);
        int leaf = -1;
        int leaves = 0;
        for (int page = 2; page * 4096 <= b.length; page++) {
            if (b[(page - 1) * 4096] == 0x0d && ++leaves == 10) leaf = page;
        }
        assertTrue(leaf > 0, leaves + " table leaves");
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.seek((leaf - 1) * 4096L);
            f.write(new byte[4096]);
        }
        WalVerifyTest.Run r = WalVerifyTest.run(db.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("-wal: 136 valid frame(s), 136 committed"), r.out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(SQLite, (\\d+) row\\(s\\)").matcher(r.out());
        assertTrue(m.find(), r.out());
        long n = Long.parseLong(m.group(1)); // keys' rows (kine's own are not counted)
        assertTrue(n >= keys - 60 && n < keys, n + " of " + keys + " rows: a leaf holds some dozens");
        // .recover counts kine's own rows too (gap-*, compact_rev_key): against it, with them.
        atLeastRecover(db, n + (all - keys), true);
    }

    @Test
    void aHealthyDbIsNotSalvaged() {
        WalVerifyTest.Run r = WalVerifyTest.run(clean.toString());
        assertEquals(0, r.exit(), r.out());
        assertTrue(!r.out().contains(".recover"), r.out());
    }
}
