package dev.walkit.format.etcd;

import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The etcd db reader never throws on damage and never trusts a length: random bytes changed anywhere in the
 * fixture (headers, elements, metas, values), or the file cut anywhere, read to an end with the damage listed.
 */
class EtcdDbFuzzTest {
    @TempDir
    Path dir;

    @Test
    void randomDamageIsReportedNeverThrown() throws Exception {
        byte[] clean = Files.readAllBytes(Fixtures.path("etcd/snapshot.db"));
        Random rnd = new Random(21);
        Path p = dir.resolve("db");
        int damaged = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] b = clean.clone();
            int flips = 1 + rnd.nextInt(8);
            for (int i = 0; i < flips; i++) {
                // Mostly where the structure is (page headers, elements, metas), sometimes anywhere.
                int page = rnd.nextInt(5) * 4096;
                int at = rnd.nextBoolean() ? page + rnd.nextInt(16 + 11 * 16) : rnd.nextInt(b.length);
                b[at] = rnd.nextInt(4) == 0 ? (byte) 0xff : (byte) rnd.nextInt(256);
            }
            if (rnd.nextInt(10) == 0) b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
            Files.write(p, b);
            try (EtcdDb db = EtcdDb.open(p)) {
                int[] n = {0};
                db.revisions((m, s, t, page, kv) -> n[0]++);
                db.leases();
                if (!db.damage().isEmpty()) damaged++;
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("round " + round + ": " + e, e);
            }
        }
        assertTrue(damaged > 1000, "most rounds found damage: " + damaged);
    }
}
