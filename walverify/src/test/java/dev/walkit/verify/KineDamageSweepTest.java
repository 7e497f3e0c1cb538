package dev.walkit.verify;

import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No "healthy" on a damaged kine db: one page of each kind SQLite's dbstat names (the table's interior, a leaf, an
 * overflow page of a large value; an index's interior and leaf) zeroed in turn: each is damage (exit 3).
 */
class KineDamageSweepTest {
    @TempDir
    static Path dir;

    static Path clean;
    static int pageSize;

    @BeforeAll
    static void aKineDb() throws Exception {
        clean = dir.resolve("clean").resolve("state.db");
        Files.createDirectories(clean.getParent());
        new KineDbGenerator(new KineDbGenerator.Options(4, 3000, false, false, 0, 100_000, "")).write(clean);
        WalVerifyTest.Run ok = WalVerifyTest.run(clean.toString());
        assertEquals(0, ok.exit(), ok.out());
    }

    /** "pagetype name" → a page of that kind (the middle one of its kind), by SQLite's dbstat. */
    static Map<String, Long> pages() throws Exception {
        Map<String, Long> out = new LinkedHashMap<>();
        Map<String, java.util.List<Long>> all = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + clean); ResultSet r = c.createStatement().executeQuery(
                "SELECT pagetype, name, pageno FROM dbstat WHERE name IN ('kine', 'kine_name_index') ORDER BY pageno")) {
            while (r.next()) {
                all.computeIfAbsent(r.getString(1) + " " + (r.getString(2).equals("kine") ? "table" : "index"), x -> new java.util.ArrayList<>()).add(r.getLong(3));
            }
            all.forEach((k, v) -> out.put(k, v.get(v.size() / 2)));
            try (ResultSet p = c.createStatement().executeQuery("PRAGMA page_size")) {
                p.next();
                pageSize = p.getInt(1);
            }
        }
        return out;
    }

    @Test
    void everyPageKindZeroedIsNeverHealthy() throws Exception {
        Map<String, Long> kinds = pages();
        assertTrue(kinds.keySet().containsAll(java.util.List.of("internal table", "leaf table", "overflow table", "internal index", "leaf index")),
                kinds.toString());
        for (Map.Entry<String, Long> k : kinds.entrySet()) {
            Path d = dir.resolve(k.getKey().replace(' ', '-')).resolve("state.db");
            Files.createDirectories(d.getParent());
            byte[] b = Files.readAllBytes(clean);
            int at = (int) ((k.getValue() - 1) * pageSize);
            java.util.Arrays.fill(b, at, at + pageSize, (byte) 0);
            Files.write(d, b);
            WalVerifyTest.Run r = WalVerifyTest.run(d.toString());
            assertEquals(3, r.exit(), k.getKey() + " page " + k.getValue() + " zeroed: " + r.out() + r.err());
        }
    }
}
