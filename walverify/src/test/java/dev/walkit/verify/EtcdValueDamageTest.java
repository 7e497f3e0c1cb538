package dev.walkit.verify;

import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damage inside an etcd value, where bbolt keeps no page checksum and etcd serves what the page holds: one 4 KiB
 * page of a 1 MiB value zeroed (a lost block), and a KeyValue whose mod_revision is not its revision key's. Each is
 * named by key, revision and page, not only by the snapshot's SHA-256. A db saved by a real etcd 3.4.
 */
class EtcdValueDamageTest {
    static final String BIG = "/registry/configmaps/default/big";
    static final String SMALL = "/registry/configmaps/default/small";

    @TempDir
    Path dir;

    Path db;
    byte[] value;

    @BeforeEach
    void aSnapshotWithABigValue() throws Exception {
        Random r = new Random(9);
        StringBuilder v = new StringBuilder();
        while (v.length() < 1 << 20) v.append((char) ('a' + r.nextInt(26)));
        value = v.toString().getBytes(StandardCharsets.US_ASCII);
        db = dir.resolve("snapshot.db");
        try (EtcdCluster e = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            Etcdctl.run(e.endpoints(), v.toString(), "put", BIG);
            Etcdctl.run(e.endpoints(), null, "put", SMALL, "v");
            Etcdctl.run(e.endpoints(), null, "snapshot", "save", db.toString());
        }
        WalVerifyTest.Run ok = WalVerifyTest.run(db.toString());
        assertEquals(0, ok.exit(), ok.out());
    }

    /** Every place {@code needle} is in {@code hay} (bbolt's free pages may hold a stale copy beside the live one). */
    static java.util.List<Integer> places(byte[] hay, byte[] needle) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
            out.add(i);
        }
        return out;
    }

    @Test
    void aZeroedPageInsideAValueIsNamedByKeyRevisionAndPage() throws Exception {
        byte[] b = Files.readAllBytes(db);
        java.util.List<Integer> pages = new java.util.ArrayList<>();
        for (int start : places(b, java.util.Arrays.copyOfRange(value, 0, 64))) {
            int page = (start + 300_000) / 4096 + 1; // a whole page well inside the value (each copy's)
            java.util.Arrays.fill(b, page * 4096, (page + 1) * 4096, (byte) 0);
            pages.add(page);
        }
        assertTrue(!pages.isEmpty());
        Files.write(db, b);
        WalVerifyTest.Run r = WalVerifyTest.run(db.toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(pages.stream().anyMatch(page -> r.out().contains("(key " + BIG + "): page " + page + ", inside its value of " + value.length
                + " bytes, is all zeros (a lost block: bbolt keeps no page checksum)")), pages + "\n" + r.out());
        assertTrue(r.out().contains("revision 2.0 (key " + BIG + ")"), r.out());
        // At the values level, still one line for that value (not its zero page again as a run of zeros).
        WalVerifyTest.Run v = WalVerifyTest.run("--level", "values", db.toString());
        assertEquals(3, v.exit(), v.out());
        assertEquals(1, v.out().lines().filter(l -> l.contains("(key " + BIG + ")")).count(), v.out());
    }

    @Test
    void aModRevisionThatIsNotItsRevisionKeysIsNamed() throws Exception {
        byte[] b = Files.readAllBytes(db);
        byte[] key = SMALL.getBytes(StandardCharsets.US_ASCII);
        int changed = 0;
        for (int at : places(b, key)) {
            // mvccpb.KeyValue: key (0x0a, len, bytes), create_revision (0x10, varint), mod_revision (0x18, varint)
            int mod = at + key.length;
            if (b[mod] != 0x10 || b[mod + 2] != 0x18 || b[mod + 3] != 3) continue; // revision 3's record (a copy of it)
            b[mod + 3] = 5;
            changed++;
        }
        assertTrue(changed > 0);
        Files.write(db, b);
        WalVerifyTest.Run r = WalVerifyTest.run(db.toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().matches("(?s).*bbolt damage: page \\d+ at offset \\d+: revision 3\\.0 \\(key " + SMALL + "\\): its KeyValue says mod_revision 5\n.*"), r.out());
    }
}
