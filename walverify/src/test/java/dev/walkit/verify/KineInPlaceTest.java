package dev.walkit.verify;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.format.kine.KineDb;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kine's state.db is read where it is when it has no -wal to read (SQLite's immutable read-only open: nothing copied,
 * nothing made beside it), and from a private copy when its -wal holds rows; the account is the same either way.
 */
class KineInPlaceTest {
    @TempDir
    Path dir;

    private static List<String> listing(Path d) throws Exception {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static JsonNode semantic(Path db) throws Exception {
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", db.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        return r.json();
    }

    @Test
    void aDbWithoutAWalIsReadWhereItIsAndNothingIsMadeBesideIt() throws Exception {
        Path db = dir.resolve("state.db");
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(5, 800));
        g.write(db);
        Files.delete(dir.resolve("state.db-shm"));
        Files.delete(dir.resolve("state.db-wal"));
        byte[] before = Files.readAllBytes(db);
        try (KineDb k = KineDb.open(db, "test")) {
            assertTrue(k.readInPlace(), "no -wal: read in place");
        }
        JsonNode j = semantic(db);
        assertEquals(g.revision(), j.get("last_revision").asLong(), j.toString());
        assertEquals(g.live().size(), j.get("live_keys").asLong(), j.toString());
        // SQLite made no -shm, -wal or -journal beside it, and wrote nothing.
        assertEquals(List.of("state.db"), listing(dir));
        assertArrayEquals(before, Files.readAllBytes(db));
    }

    @Test
    void anEmptyWalIsNothingToRead() throws Exception {
        Path db = dir.resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(6, 300)).write(db);
        assertEquals(0, Files.size(dir.resolve("state.db-wal")));
        try (KineDb k = KineDb.open(db, "test")) {
            assertTrue(k.readInPlace());
        }
    }

    @Test
    void rowsOnlyInTheWalAreReadFromACopyAndCounted() throws Exception {
        Path db = dir.resolve("state.db");
        KineDbGenerator g = new KineDbGenerator(new KineDbGenerator.Options(7, 400, false, false, 60, 0, ""));
        g.write(db);
        assertTrue(Files.size(dir.resolve("state.db-wal")) > 0);
        try (KineDb k = KineDb.open(db, "test")) {
            assertFalse(k.readInPlace(), "a -wal with rows: a copy");
        }
        JsonNode j = semantic(db);
        assertEquals(g.revision(), j.get("last_revision").asLong(), "the -wal's rows read: " + j);
    }

    @Test
    void aPathWithTheCharactersOfAUriIsReadInPlaceAlike() throws Exception {
        Path plain = dir.resolve("plain");
        Files.createDirectories(plain);
        new KineDbGenerator(KineDbGenerator.Options.of(8, 500)).write(plain.resolve("state.db"));
        // '?', '#' and '%' end or escape a URI's path; a space and a non-ASCII name too.
        Path odd = dir.resolve("a ?b#c%20d é");
        Files.createDirectories(odd);
        new KineDbGenerator(KineDbGenerator.Options.of(8, 500)).write(odd.resolve("state.db"));
        for (Path d : List.of(plain, odd)) {
            Files.delete(d.resolve("state.db-shm"));
            Files.delete(d.resolve("state.db-wal"));
        }
        try (KineDb k = KineDb.open(odd.resolve("state.db"), "test")) {
            assertTrue(k.readInPlace());
        }
        JsonNode a = semantic(plain.resolve("state.db"));
        JsonNode b = semantic(odd.resolve("state.db"));
        for (String field : List.of("records", "transactions", "last_revision", "live_keys", "tombstones", "verdict")) {
            assertEquals(a.get(field), b.get(field), field);
        }
        assertEquals(List.of("state.db"), listing(odd));
    }
}
