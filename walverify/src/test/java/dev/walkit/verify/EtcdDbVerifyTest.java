package dev.walkit.verify;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** walverify of an etcd db (testdata/fixtures/etcd/snapshot.db, a real etcd 3.4's; see shared-format's EtcdDbTest). */
class EtcdDbVerifyTest {
    static final Path DB = Fixtures.path("etcd/snapshot.db");

    @TempDir
    Path dir;

    @Test
    void aHealthyDbAtEachLevel() throws Exception {
        WalVerifyTest.Run s = WalVerifyTest.run("--level", "semantic", DB.toString());
        assertEquals(0, s.exit(), s.out() + s.err());
        assertTrue(s.out().startsWith(DB + ": etcd db (bbolt page size 4096, txid 12, consistent index 20, 2 lease(s) in its lease bucket, etcdctl snapshot's SHA-256 matches), 20,512 bytes, level semantic"), s.out());
        JsonNode j = WalVerifyTest.run("-w", "json", "--level", "semantic", DB.toString()).json();
        assertEquals("etcd-db", j.get("store").asText());
        assertEquals(12, j.get("records").asLong(), "12 revisions in the key bucket");
        assertEquals(8, j.get("compact_revision").asLong());
        assertEquals(14, j.get("last_revision").asLong());
        assertEquals(6, j.get("live_keys").asLong());
        assertEquals(0, j.get("store_damage").size());
        assertEquals("healthy", j.get("verdict").asText());
        WalVerifyTest.Run f = WalVerifyTest.run("-w", "json", "--level", "frame", DB.toString());
        assertEquals(0, f.exit(), f.out() + f.err());
        assertEquals(12, f.json().get("records").asLong());
        // One account at every level: the snapshot prefix's 6 records (the keys live at the compaction, 8) each a transaction, then the
        // 6 transactions after it (9..14); the frame level counted the db's 10 main revisions, the semantic level 12.
        assertEquals(12, f.json().get("transactions").asLong());
        assertEquals(List.of(8L, 14L, 8L), List.of(f.json().get("first_revision").asLong(), f.json().get("last_revision").asLong(),
                f.json().get("compact_revision").asLong()));
    }

    @Test
    void aDbWhoseFirstMetaIsDamagedIsReadThroughTheOtherAsBboltDoes() throws Exception {
        byte[] b = Files.readAllBytes(DB);
        b[16] ^= 0x01; // meta page 0's magic
        Path p = dir.resolve("db");
        Files.write(p, b);
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", "--level", "semantic", p.toString());
        assertEquals(3, r.exit(), "damaged, not 'not a WAL': " + r.out() + r.err());
        JsonNode j = r.json();
        assertEquals("etcd-db", j.get("store").asText());
        assertTrue(j.get("store_damage").get(0).asText().startsWith("page 0 at offset 0: meta page 0: magic ed0cdaec, not bbolt's ed0cdaed"),
                j.get("store_damage").toString());
        assertEquals(12, j.get("records").asLong(), "every revision read through meta page 1");
        assertEquals(6, j.get("live_keys").asLong());
    }

    @Test
    void aDirectoryMidSwitchSaysSoAndWhatFinishesIt() throws Exception {
        Path d = Files.createDirectories(dir.resolve("out"));
        Files.writeString(d.resolve(".walkit.switch"), "");
        WalVerifyTest.Run r = WalVerifyTest.run(d.toString());
        assertEquals(4, r.exit());
        assertEquals("walverify: " + d + ": no 'wal' file: a run that writes one (walrecover --out, walmigrate --out-wal) crashed while it put "
                + "its output in place (.walkit.switch is there); run the same command again to finish it", r.err().strip());
    }

    @Test
    void aSnapshotWhoseTrailerIsNotWholeIsDamage() throws Exception {
        byte[] b = Files.readAllBytes(DB);
        Path p = dir.resolve("db");
        Files.write(p, java.util.Arrays.copyOf(b, b.length - 1)); // the last byte of the SHA-256 cut
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", p.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals("offset 20480: the file ends 31 byte(s) past its last whole page: neither a member's db (whole pages) nor an etcdctl "
                + "snapshot (whole pages and a 32-byte SHA-256): it was cut short or appended to", r.json().get("store_damage").get(0).asText());
        assertEquals("damaged", r.json().get("verdict").asText());
    }

    @Test
    void aDamagedPageIsDamageWithItsNumberAndOffset() throws Exception {
        byte[] b = Files.readAllBytes(DB);
        b[3 * 4096 + 8] = 0;
        Path p = dir.resolve("db");
        Files.write(p, b);
        WalVerifyTest.Run r = WalVerifyTest.run("-w", "json", p.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals("page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page", r.json().get("store_damage").get(0).asText());
        // The root's damage once, though the lookup of each bucket (key, meta, lease) meets it; the lost buckets named.
        assertEquals(java.util.List.of("page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page",
                "offset 20480: the snapshot's SHA-256 (its last 32 bytes, as etcdctl snapshot save writes it) does not match its pages: the file changed since it was saved",
                "no 'key' bucket: not an etcd v3 database, or its root page is damaged"),
                java.util.stream.StreamSupport.stream(r.json().get("store_damage").spliterator(), false).map(n -> n.asText()).toList());
        assertEquals("damaged", r.json().get("verdict").asText());
        WalVerifyTest.Run text = WalVerifyTest.run(p.toString());
        assertTrue(text.out().contains("  bbolt damage: page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page"), text.out());
        assertTrue(text.out().contains("`waldoctor diagnose " + p + "` for the report"), text.out());
        // --jsonl: the damage as a line of its own before the summary, which counts it.
        WalVerifyTest.Run lines = WalVerifyTest.run("--jsonl", p.toString());
        assertEquals(3, lines.exit(), lines.out() + lines.err());
        String[] l = lines.out().strip().split("\n");
        assertEquals("{\"type\":\"store_damage\",\"store\":\"etcd-db\",\"detail\":\"page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page\"}", l[0]);
        assertEquals(r.json().get("store_damage").size(), l.length - 1, "a line each: " + lines.out());
        assertTrue(l[l.length - 1].contains("\"type\":\"summary\"") && l[l.length - 1].contains("\"damage_count\":" + (l.length - 1)), lines.out());
    }

    @Test
    void noValidMetaTheTreeIsReadFromTheRootPageAMetaWouldName() throws Exception {
        byte[] b = Files.readAllBytes(DB);
        b[64] ^= 1;
        b[4096 + 64] ^= 1;
        Path p = dir.resolve("db");
        Files.write(p, b);
        WalVerifyTest.Run r = WalVerifyTest.run(p.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("no valid meta page: the tree is read from page 3"), r.out());
        assertTrue(!r.err().contains("Exception"), r.err());
    }

    @Test
    void noValidMetaAndNoPageOfTheTreeIsNotADatabase() throws Exception {
        byte[] b = Files.readAllBytes(DB);
        b[64] ^= 1;
        b[4096 + 64] ^= 1;
        java.util.Arrays.fill(b, 2 * 4096, 4 * 4096, (byte) 0); // both root bucket pages
        Path p = dir.resolve("db");
        Files.write(p, b);
        WalVerifyTest.Run r = WalVerifyTest.run(p.toString());
        assertEquals(4, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(p + ": a bbolt file with no valid meta page and no page of etcd's revisions (meta page 0: checksum "), r.err());
        assertTrue(!r.err().contains("Exception"), r.err());
    }
}
