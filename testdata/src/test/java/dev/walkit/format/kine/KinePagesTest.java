package dev.walkit.format.kine;

import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kine's table read from its pages ({@link KineTable}) against the same rows read by SQLite, row for row and column
 * for column: generated kine dbs of each shape, rows only in the -wal, frames of the -wal that do not count, page sizes,
 * values over many overflow pages, columns of types the pages' reader leaves to SQLite, and a damaged leaf page.
 */
class KinePagesTest {
    @TempDir
    Path dir;

    /** Every row as a line of its columns, and how the pages were read. */
    private record Read(List<String> rows, String pageRead, List<String> unreadable) {
    }

    private static Read read(Path stateDb, boolean values, boolean pagesFirst) throws Exception {
        try (KineDb db = KineDb.open(stateDb, "test")) {
            List<String> rows = new ArrayList<>();
            try (KineRows r = KineRows.start(db, values ? KineHistoryWal.ROWS : KineHistoryWal.ROWS_VALUE_LENGTHS, values, pagesFirst)) {
                for (KineRows.Batch b; (b = r.next()) != null; r.done(b)) {
                    for (int i = 0; i < b.size; i++) {
                        rows.add(b.id[i] + " " + (b.name[i] == null ? "null" : HexFormat.of().formatHex(b.name[i])) + " " + b.created[i] + " "
                                + b.deleted[i] + " " + b.createRevision[i] + " " + b.lease[i] + " " + b.valueLength[i] + " "
                                + (b.value[i] == null ? "null" : HexFormat.of().formatHex(b.value[i])));
                    }
                }
                List<String> lost = new ArrayList<>();
                for (KineRows.Unreadable u : r.unreadable()) lost.add(u.toString());
                return new Read(rows, r.pageRead(), lost);
            }
        }
    }

    /** Pages and SQLite give the same rows, with values and with their lengths only; every row from the pages. */
    private static void same(Path stateDb) throws Exception {
        for (boolean values : new boolean[] {true, false}) {
            Read pages = read(stateDb, values, true);
            Read sqlite = read(stateDb, values, false);
            assertTrue(sqlite.rows().size() > 0);
            assertEquals(sqlite.rows(), pages.rows(), "values " + values);
            assertNull(pages.pageRead(), "every row from the pages");
            assertEquals("not used: SQLite asked for", sqlite.pageRead());
        }
    }

    @Test
    void generatedKineDbsOfEachShapeReadAsSqliteReadsThem() throws Exception {
        int n = 0;
        for (KineDbGenerator.Options o : List.of(KineDbGenerator.Options.of(1, 4000),
                new KineDbGenerator.Options(2, 3000, true, false, 0, 0, ""),
                new KineDbGenerator.Options(3, 3000, false, true, 0, 0, ""),
                // Rows committed only in the -wal; a value of 300 kB over 74 overflow pages.
                new KineDbGenerator.Options(4, 3000, false, false, 800, 300_000, ""))) {
            Path db = Files.createDirectories(dir.resolve("k" + n++)).resolve("state.db");
            new KineDbGenerator(o).write(db);
            same(db);
        }
    }

    /** A db in WAL mode whose -wal is copied at the moment given; the writer left open (no checkpoint). */
    private static void rows(Connection c, int from, int to, int valueBytes) throws Exception {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO kine(id, name, created, deleted, create_revision, prev_revision, lease, value, old_value) VALUES (?,?,1,0,0,0,?,?,NULL)")) {
            for (int i = from; i < to; i++) {
                p.setInt(1, i);
                p.setString(2, "/registry/configmaps/default/c-" + i);
                p.setInt(3, i % 7);
                p.setBytes(4, new byte[valueBytes + i % 13]);
                p.executeUpdate();
            }
        }
    }

    private static Connection kineTable(Path db, int pageSize) throws Exception {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA page_size=" + pageSize);
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA wal_autocheckpoint=0");
            s.execute("CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name INTEGER, created INTEGER, deleted INTEGER,"
                    + " create_revision INTEGER, prev_revision INTEGER, lease INTEGER, value BLOB, old_value BLOB)");
        }
        return c;
    }

    @Test
    void framesOfTheWalPastItsLastCommitDoNotCount() throws Exception {
        // Commit A (rows 1-299), then B (rows 300-599, frames of many pages); the -wal cut by one frame loses B's
        // commit frame: B's other frames are in the file, and neither reader takes them.
        Path work = Files.createDirectories(dir.resolve("work"));
        Path out = Files.createDirectories(dir.resolve("out")).resolve("state.db");
        try (Connection c = kineTable(work.resolve("state.db"), 4096)) {
            c.setAutoCommit(false);
            rows(c, 1, 300, 200);
            c.commit();
            rows(c, 300, 600, 200);
            c.commit();
            Files.copy(work.resolve("state.db"), out);
            Files.copy(work.resolve("state.db-wal"), out.resolveSibling("state.db-wal"));
        }
        Path wal = out.resolveSibling("state.db-wal");
        long frame = 24 + 4096;
        long frames = (Files.size(wal) - 32) / frame;
        assertTrue(frames > 20, "B wrote many frames: " + frames);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(32 + (frames - 1) * frame);
        }
        Read pages = read(out, true, true);
        assertEquals(read(out, true, false).rows(), pages.rows());
        assertEquals(299, pages.rows().size(), "A's rows, not B's");
        assertNull(pages.pageRead());
        // A frame of another cycle (its salt changed) past A's commit: not read either.
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.seek(32 + (frames - 2) * frame + 8);
            f.writeInt(f.readInt() ^ 1);
        }
        assertEquals(299, read(out, true, true).rows().size());
        assertEquals(read(out, false, false).rows(), read(out, false, true).rows());
    }

    @Test
    void pageSizesFrom512To65536AndValuesOverManyOverflowPages() throws Exception {
        for (int pageSize : new int[] {512, 1024, 65536}) {
            Path work = Files.createDirectories(dir.resolve("p" + pageSize));
            Path db = work.resolve("state.db");
            try (Connection c = kineTable(db, pageSize)) {
                c.setAutoCommit(false);
                rows(c, 1, 400, 30);
                rows(c, 400, 420, 70_000); // past a 64 KiB page's local payload too
                c.commit();
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                }
            }
            same(db);
        }
    }

    @Test
    void aColumnOfAnotherTypeIsReadBySqliteFromThatRowOn() throws Exception {
        // A name stored as an integer (kine's name column is declared INTEGER: a name that looks like one is one),
        // a float create_revision: SQLite's casts give these, the pages' reader leaves them to it.
        Path db = dir.resolve("state.db");
        try (Connection c = kineTable(db, 4096)) {
            c.setAutoCommit(false);
            rows(c, 1, 500, 100);
            try (Statement s = c.createStatement()) {
                s.execute("UPDATE kine SET name = '12345' WHERE id = 200");
                s.execute("UPDATE kine SET create_revision = 1.5 WHERE id = 300");
            }
            c.commit();
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
        }
        for (boolean values : new boolean[] {true, false}) {
            Read pages = read(db, values, true);
            assertEquals(read(db, values, false).rows(), pages.rows());
            assertEquals("stopped after id 199: row 200's name is of serial type 2", pages.pageRead());
            assertTrue(pages.rows().get(199).startsWith("200 3132333435 "), pages.rows().get(199));
        }
    }

    /**
     * Fuzz: bytes of a kine db overwritten at random (in the table's pages and anywhere), 120 files: each read ends, in
     * rows in rising id order or in a one-line refusal (an IOException), never in an unchecked exception or a hang;
     * where the pages' reader stopped, SQLite read on (its reason recorded). Seeded: a failure names its round.
     */
    @Test
    void randomDamageEndsInRowsOrARefusalNeverAFaultOrAHang() throws Exception {
        Path clean = Files.createDirectories(dir.resolve("clean")).resolve("state.db");
        new KineDbGenerator(new KineDbGenerator.Options(9, 1500, false, false, 0, 40_000, "")).write(clean);
        byte[] bytes = Files.readAllBytes(clean);
        java.util.Random rnd = new java.util.Random(21);
        int stoppedEarly = 0;
        for (int round = 0; round < 120; round++) {
            byte[] b = bytes.clone();
            int writes = 1 + rnd.nextInt(8);
            for (int w = 0; w < writes; w++) {
                // A page's header and cell pointers (the tree's shape), a cell's first bytes (its payload's size, its
                // rowid, its record's header), or anywhere past page 1.
                int page = 1 + rnd.nextInt(b.length / 4096 - 1);
                int base = page * 4096;
                int at = switch (rnd.nextInt(3)) {
                    case 0 -> base + rnd.nextInt(32);
                    case 1 -> {
                        int cells = ((b[base + 3] & 0xff) << 8) | (b[base + 4] & 0xff);
                        int header = b[base] == 0x05 ? 12 : 8;
                        int ptr = base + header + 2 * rnd.nextInt(Math.max(1, Math.min(cells, 100)));
                        int cell = ((b[ptr] & 0xff) << 8) | (b[ptr + 1] & 0xff);
                        yield base + Math.min(4095, cell + rnd.nextInt(6));
                    }
                    default -> base + rnd.nextInt(4096);
                };
                b[at] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : b[at] ^ (1 << rnd.nextInt(8)));
            }
            Path db = Files.createDirectories(dir.resolve("f" + round)).resolve("state.db");
            Files.write(db, b);
            final int r = round;
            for (boolean values : new boolean[] {true, false}) {
                Read read;
                try {
                    read = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> read(db, values, true),
                            "round " + r);
                } catch (Exception e) { // rethrown as it was by the timeout's thread
                    if (!(e instanceof java.io.IOException || e instanceof java.sql.SQLException)) throw e;
                    for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                        if (c instanceof RuntimeException) throw new AssertionError("round " + r + ": a fault, not a refusal: " + e, e);
                    }
                    continue; // refused whole, in a sentence (SQLite's own failure)
                }
                // The pages' rows rise (rowids out of order stop it); SQLite's, read on past damage, are as it gives them.
                long pagesTo = read.pageRead() == null ? Long.MAX_VALUE : Long.parseLong(read.pageRead().split(" ")[3].replace(":", ""));
                long last = Long.MIN_VALUE;
                for (String row : read.rows()) {
                    long id = Long.parseLong(row.substring(0, row.indexOf(' ')));
                    if (last >= pagesTo) break;
                    assertTrue(id > last, "round " + r + ": ids rise: " + id + " after " + last + " (" + read.pageRead() + ")");
                    last = id;
                }
                if (read.pageRead() != null) stoppedEarly++;
            }
        }
        assertTrue(stoppedEarly > 0, "some damage stopped the pages' reader");
        Files.delete(clean);
    }

    @Test
    void theRealKinesDbWithFramesOfAnEarlierCycleInItsWalReadsAsSqliteReadsIt() throws Exception {
        // The real kine takes 61 creates of 100 kB values: past SQLite's 1000-frame checkpoint its -wal begins again
        // over the earlier cycle's frames (other salts), and killed -9 it leaves both. Pages and SQLite give the same
        // rows, all from the pages, the last create last.
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.walkit.testdata.KineServer.available(), "the real kine is not at "
                + dev.walkit.testdata.KineServer.binary());
        Path db = Files.createDirectories(dir.resolve("k3s")).resolve("state.db");
        String big = "x".repeat(100_000);
        dev.walkit.testdata.KineServer k = dev.walkit.testdata.KineServer.start(db, dir.resolve("kine.log"));
        try {
            for (int i = 0; i <= 60; i++) assertTrue(dev.walkit.testdata.Etcdctl.create(k.endpoint(), "/registry/configmaps/big/cm-" + i, big, 0));
        } finally {
            k.kill();
        }
        byte[] wal = Files.readAllBytes(db.resolveSibling("state.db-wal"));
        java.nio.ByteBuffer w = java.nio.ByteBuffer.wrap(wal);
        int frame = 24 + w.getInt(8);
        int stale = 0;
        for (int at = 32; at + frame <= wal.length; at += frame) {
            if (w.getInt(at + 8) != w.getInt(16) || w.getInt(at + 12) != w.getInt(20)) stale++;
        }
        assertTrue(stale > 0, "frames of an earlier cycle in the -wal");
        Read pages = read(db, true, true);
        Read sqlite = read(db, true, false);
        assertEquals(sqlite.rows(), pages.rows());
        assertNull(pages.pageRead(), "every row from the pages");
        String last = HexFormat.of().formatHex("/registry/configmaps/big/cm-60".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(pages.rows().get(pages.rows().size() - 1).contains(" " + last + " true false "), "the last create is the last row");
        assertEquals(read(db, false, false).rows(), read(db, false, true).rows());
    }

    @Test
    void aChildPastTheDatabaseStopsThePagesReaderWithItsNumber() throws Exception {
        // A middle child of the table's root (an interior page: the left child of its middle cell) set past the last
        // page. (The first and last children are where SQLite is asked first: damage there is read past by reading
        // every leaf page, KineSalvageTest.)
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(7, 6000)).write(db);
        long root;
        long pages;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT rootpage FROM sqlite_master WHERE name = 'kine'")) {
                r.next();
                root = r.getLong(1);
            }
            try (ResultSet r = s.executeQuery("PRAGMA page_count")) {
                r.next();
                pages = r.getLong(1);
            }
        }
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.seek((root - 1) * 4096);
            assertEquals(0x05, f.read(), "the root is an interior page");
            f.seek((root - 1) * 4096 + 3);
            int cells = f.readUnsignedShort();
            f.seek((root - 1) * 4096 + 12 + 2L * (cells / 2));
            int cell = f.readUnsignedShort();
            f.seek((root - 1) * 4096 + cell);
            f.writeInt((int) pages + 5);
        }
        Read read = read(db, false, true);
        assertTrue(read.pageRead().matches("stopped after id \\d+: page " + (pages + 5) + " is past the database"), read.pageRead());
        assertEquals(read(db, false, false).rows(), read.rows());
        assertEquals(1, read.unreadable().size(), "SQLite names what it could not read: " + read.unreadable());
    }

    @Test
    void aZeroedLeafPageStopsThePagesReaderThereAndSqliteReadsPastIt() throws Exception {
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 6000)).write(db);
        long page;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pageno FROM dbstat WHERE name = 'kine' AND pagetype = 'leaf' ORDER BY pageno")) {
            List<Long> leaves = new ArrayList<>();
            while (r.next()) leaves.add(r.getLong(1));
            page = leaves.get(leaves.size() / 2);
        }
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.seek((page - 1) * 4096);
            f.write(new byte[4096]);
        }
        Read pages = read(db, false, true);
        Read sqlite = read(db, false, false);
        assertEquals(sqlite.rows(), pages.rows());
        assertEquals(sqlite.unreadable(), pages.unreadable());
        assertEquals(1, pages.unreadable().size(), pages.unreadable().toString());
        assertTrue(pages.pageRead().matches("stopped after id \\d+: page " + page + " is of type 0, not a table b-tree page"), pages.pageRead());
        String after = pages.pageRead().split(" ")[3].replace(":", "");
        assertTrue(pages.unreadable().get(0).contains("rows after id " + after + " up to id"), pages.unreadable() + " / " + pages.pageRead());
    }
}
