package dev.walkit.recover;

import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineDbGenerator;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * kine's state.db recovered as kine's state.db, served by the real kine (../shared/tools/kine): a clean db comes back
 * with every live key and value kine served from it; a db whose table's root page is zeroed (SQLite: "database disk
 * image is malformed") is read from its leaf pages, and the recovered db serves exactly what the clean one did.
 */
class KineRecoverTest {
    @TempDir
    static Path dir;
    static Path clean;
    static Map<String, String> served;

    /** What the real kine serves from {@code stateDb} (a copy: kine writes into the db it serves): key → value. */
    static Map<String, String> servedByKine(Path stateDb, String name) throws Exception {
        Path copy = Files.createDirectories(dir.resolve("served-" + name)).resolve("state.db");
        Files.copy(stateDb, copy);
        try (KineServer k = KineServer.start(copy, dir.resolve("kine-" + name + ".log"))) {
            Map<String, String> m = new TreeMap<>();
            for (Etcdctl.Kv kv : Etcdctl.get(k.endpoint(), "/registry/", 0)) {
                if (kv.key().equals("/registry/health")) continue; // kine's own, written at its first start
                m.put(kv.key(), new String(kv.value(), StandardCharsets.ISO_8859_1));
            }
            return m;
        }
    }

    @BeforeAll
    static void aKineDb() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        clean = Files.createDirectories(dir.resolve("clean")).resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 3000)).write(clean);
        served = servedByKine(clean, "clean");
        assertTrue(served.size() > 100, served.size() + " keys");
    }

    @Test
    void aCleanKineDbComesBackAsKinesOwnAndKineServesIt() throws Exception {
        Path out = dir.resolve("out-clean");
        WalRecoverTest.Run r = WalRecoverTest.run(clean.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("wrote " + out.resolve("state.db")), r.out());
        assertTrue(r.out().contains("kine's state.db of " + String.format("%,d", served.size()) + " live key(s)"), r.out());
        assertEquals(served, servedByKine(out.resolve("state.db"), "out-clean"));
    }

    @Test
    void theTablesRootPageZeroedIsRecoveredFromItsLeavesAndServedAsTheCleanDb() throws Exception {
        Path damaged = Files.createDirectories(dir.resolve("root")).resolve("state.db");
        Files.copy(clean, damaged);
        dev.walkit.testdata.SqliteFile.zeroKineRoot(damaged);
        Path out = dir.resolve("out-root");
        // The default policy (salvage) writes past the damage; absolute refuses it.
        WalRecoverTest.Run refused = WalRecoverTest.run(damaged.toString(), "--policy", "absolute", "--out", out.toString());
        assertEquals(3, refused.exit(), refused.out() + refused.err());
        WalRecoverTest.Run r = WalRecoverTest.run(damaged.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("as sqlite3's .recover reads them"), r.out());
        assertEquals(served, servedByKine(out.resolve("state.db"), "out-root"));
    }
}
