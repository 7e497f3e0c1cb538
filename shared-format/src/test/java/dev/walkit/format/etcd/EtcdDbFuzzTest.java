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
        fuzz(Files.readAllBytes(Fixtures.path("etcd/snapshot.db")), 21, 3000, 1000, 0);
    }

    /**
     * A db of many leaves and a branch (written by the writer: 400 revisions of 300-byte values, a compaction, leases):
     * the salvage past the tree is what many rounds read (a branch or leaf page damaged, the metas, the file cut).
     */
    @Test
    void randomDamageToADbOfManyPagesIsReadPastTheTreeNeverThrown() throws Exception {
        Path db = dir.resolve("written");
        try (EtcdDbWriter w = EtcdDbWriter.create(db)) {
            for (int i = 1; i <= 400; i++) {
                w.put(i, 0, ("/registry/pods/ns/p-" + (i % 150)).getBytes(), i, 1, new byte[300], i % 7 == 0 ? 0x55L : 0);
            }
            w.finish(java.util.Map.of(0x55L, 60L), 100, -1);
        }
        fuzz(Files.readAllBytes(db), 22, 1500, 500, 100);
    }

    private void fuzz(byte[] clean, long seed, int rounds, int minDamaged, int minSalvaged) throws Exception {
        Random rnd = new Random(seed);
        Path p = dir.resolve("db");
        int pages = clean.length / 4096;
        int damaged = 0;
        int salvaged = 0;
        for (int round = 0; round < rounds; round++) {
            byte[] b = clean.clone();
            int flips = 1 + rnd.nextInt(8);
            for (int i = 0; i < flips; i++) {
                // Mostly where the structure is (page headers, elements, metas), sometimes anywhere.
                int page = rnd.nextInt(pages) * 4096;
                int at = rnd.nextBoolean() ? page + rnd.nextInt(16 + 11 * 16) : rnd.nextInt(b.length);
                b[at] = rnd.nextInt(4) == 0 ? (byte) 0xff : (byte) rnd.nextInt(256);
            }
            if (rnd.nextInt(10) == 0) b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
            Files.write(p, b);
            try (EtcdDb db = EtcdDb.open(p)) {
                int[] n = {0};
                db.revisions((m, s, t, page, kv) -> n[0]++);
                // A tree that was not the whole answer is read again past it (the salvage): never a throw either, and
                // in revision order.
                if (db.readAgain()) {
                    salvaged++;
                    long[] last = {-1, -1};
                    db.revisions((m, s, t, page, kv) -> {
                        if (m < last[0] || (m == last[0] && s <= last[1])) throw new AssertionError("out of order: " + m + "." + s + " after " + last[0] + "." + last[1]);
                        last[0] = m;
                        last[1] = s;
                    });
                }
                db.leases();
                if (!db.damage().isEmpty()) damaged++;
            } catch (RuntimeException | StackOverflowError | AssertionError e) {
                throw new AssertionError("round " + round + ": " + e, e);
            }
        }
        assertTrue(damaged > minDamaged, "rounds that found damage: " + damaged);
        assertTrue(salvaged >= minSalvaged, "rounds read past the tree: " + salvaged);
    }
}
