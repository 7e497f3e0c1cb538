package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the one-shot commands say on the etcd db fixture (testdata/fixtures/etcd: compacted at 8, revisions 4..14). */
class StoreShellTest {
    static final String DB = Fixtures.path("etcd/snapshot.db").toString();

    @Test
    void aRevisionBeforeTheCompactionIsCompactedNotAbsent() {
        WalDoctorTest.Run r = WalDoctorTest.run("get", DB, "/registry/configmaps/default/a", "--rev", "5");
        assertEquals(1, r.exit());
        assertTrue((r.out() + r.err()).contains("revision 5 is compacted (compact revision 8)"), r.out() + r.err());
        WalDoctorTest.Run at8 = WalDoctorTest.run("get", DB, "/registry/configmaps/default/a", "--rev", "8");
        assertEquals(0, at8.exit(), at8.out() + at8.err());
        assertTrue(at8.out().contains("mod_revision: 6"), "the state the compaction kept: " + at8.out());
    }

    @Test
    void aHistoryThatStartsAtTheCompactionSaysSo() {
        WalDoctorTest.Run r = WalDoctorTest.run("history", DB, "/registry/configmaps/default/a");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().startsWith("(history before revision 9 is compacted: the first event shown is the key's state then, its prev_kv unknown)"), r.out());
        assertTrue(r.out().contains("rev 9  PUT      version 3, create 2"), r.out());
        // A key created after the compaction has its whole history: no note.
        WalDoctorTest.Run b = WalDoctorTest.run("history", DB, "/registry/configmaps/default/b");
        assertTrue(!b.out().contains("compacted"), b.out());
    }

    @Test
    void theCommandsTakeAStoresDirectoryAsTheyTakeItsFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // A stopped etcd member's data directory, and k3s's kine directory: the file inside is found by its place.
        java.nio.file.Path member = java.nio.file.Files.createDirectories(dir.resolve("etcd/member/snap"));
        java.nio.file.Files.copy(java.nio.file.Path.of(DB), member.resolve("db"));
        WalDoctorTest.Run etcd = WalDoctorTest.run("diagnose", dir.resolve("etcd").toString());
        assertEquals(0, etcd.exit(), etcd.out() + etcd.err());
        assertTrue(etcd.out().contains(member.resolve("db") + ": etcd db (bbolt page size 4096"), etcd.out());
        java.nio.file.Path kine = java.nio.file.Files.createDirectories(dir.resolve("k3s/server/db"));
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(2, 300)).write(kine.resolve("state.db"));
        WalDoctorTest.Run k = WalDoctorTest.run("diagnose", kine.toString());
        assertEquals(0, k.exit(), k.out() + k.err());
        assertTrue(k.out().contains(kine.resolve("state.db") + ": kine state.db (SQLite, "), k.out());
        // The next lease ID is the WAL store's (it numbers leases in turn): not said of etcd's IDs or kine's TTLs.
        assertTrue(!etcd.out().contains("next lease ID") && !k.out().contains("next lease ID"), etcd.out() + k.out());
        assertTrue(java.util.regex.Pattern.compile(", leases \\d+\n").matcher(etcd.out()).find(), etcd.out());
        WalDoctorTest.Run kl = WalDoctorTest.run("leases", kine.toString());
        assertEquals(0, kl.exit(), kl.out() + kl.err());
        assertTrue(kl.out().contains(", kine: its TTL in seconds)") && !kl.out().contains("next lease ID"), kl.out());
        // A member directory whose db has no valid meta page: not a database, one line, exit 4.
        java.nio.file.Path empty = java.nio.file.Files.createDirectories(dir.resolve("broken/member/snap"));
        java.nio.file.Files.write(empty.resolve("db"), new byte[0]);
        WalDoctorTest.Run b = WalDoctorTest.run("diagnose", dir.resolve("broken").toString());
        assertEquals(4, b.exit(), b.out() + b.err());
        assertEquals("waldoctor diagnose: " + empty.resolve("db") + ": a bbolt file with no valid meta page and no page of etcd's revisions (meta page 0: the file ends at 0, before this meta page)",
                b.err().strip());
    }

    @Test
    void aDamagedDbIsDiagnosedDamagedWithItsPage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        byte[] b = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(DB));
        b[3 * 4096 + 8] = 0; // page 3's flags: neither branch nor leaf
        java.nio.file.Path p = java.nio.file.Files.write(dir.resolve("db"), b);
        WalDoctorTest.Run r = WalDoctorTest.run("diagnose", p.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("  bbolt damage: page 3 at offset 12288: page 3: flags 0x00, not a branch or leaf page"), r.out());
        assertTrue(r.out().contains("verdict: damaged"), r.out());
        assertTrue(r.out().contains("etcd's own copy: `etcdctl snapshot save` from a healthy member"), r.out());
        assertTrue(!r.err().contains("walkit-store-"), "never the private copy's path: " + r.err());
        // A kine database with no row of data: an empty history, no error.
        java.nio.file.Path kine = dir.resolve("state.db");
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(3, 0)).write(kine);
        WalDoctorTest.Run k = WalDoctorTest.run("diagnose", kine.toString());
        assertEquals(0, k.exit(), k.out() + k.err());
        assertTrue(k.out().contains("live keys 0,"), k.out());
    }

    @Test
    void aKineDbWithADamagedTablePageIsDiagnosedWithTheRowsItLost(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path db = dir.resolve("state.db");
        new dev.walkit.testdata.KineDbGenerator(dev.walkit.testdata.KineDbGenerator.Options.of(5, 4000)).write(db);
        long page = dev.walkit.testdata.KineDbGenerator.tableLeaves(db).get(5);
        dev.walkit.testdata.KineDbGenerator.overwritePage(db, page, new byte[4096]);
        WalDoctorTest.Run d = WalDoctorTest.run("diagnose", db.toString());
        assertEquals(3, d.exit(), d.out() + d.err());
        assertTrue(d.out().matches("(?s).*  SQLite damage: SQLite could not read kine's rows after id \\d+ up to id \\d+, where the read went on.*"), d.out());
        // The advice names no command this machine cannot run (Debian 12's sqlite3 has no .recover): the rows walkit read past the damage.
        assertFalse(d.out().contains(".recover |") || d.out().contains(".dump |"), d.out());
        assertTrue(d.out().contains("`waldoctor shell " + db + "`"), d.out());
        WalDoctorTest.Run range = WalDoctorTest.run("range", db.toString(), "/registry/", "--keys-only", "--limit", "0");
        // A partial answer never looks whole: the keys read, then one line saying what they lack, exit 3.
        assertEquals(3, range.exit(), range.err());
        assertTrue(range.err().strip().matches("waldoctor range: " + java.util.regex.Pattern.quote(db.toString()) + " is damaged \\(.*\\): this answer lacks "
                + "what the damage held; `waldoctor diagnose .*` for the report"), range.err());
        assertTrue(range.out().lines().filter(l -> l.startsWith("/registry/")).count() > 100, range.out());
    }

    @Test
    void aLeaseWithNoLiveKeyIsShownAsEtcdctlLeaseTimetoliveShowsItAndIdsAreSixteenHexDigits() {
        String db = dev.walkit.format.Fixtures.path("etcd/snapshot.db").toString();
        WalDoctorTest.Run l = WalDoctorTest.run("leases", db);
        assertEquals(0, l.exit(), l.err());
        assertTrue(l.out().contains("lease 07c1a23cf75b1f08 (558906211502333704): TTL 600s, 0 live key(s)"), "etcdctl's %016x first: " + l.out());
        WalDoctorTest.Run empty = WalDoctorTest.run("lease", db, "7c1a23cf75b1f08");
        assertEquals(0, empty.exit(), "a lease granted with no key on it now is a lease, not a miss: " + empty.err());
        assertEquals("lease 07c1a23cf75b1f08 (558906211502333704): TTL 600s, 0 live keys", empty.out().strip());
        WalDoctorTest.Run hex = WalDoctorTest.run("lease", db, "07c1a23cf75b1f08");
        assertEquals(empty.out(), hex.out(), "the ID as etcdctl prints it");
        WalDoctorTest.Run none = WalDoctorTest.run("lease", db, "12345");
        assertEquals(1, none.exit(), "a lease the db never held: not found");
    }

    @Test
    void secretsAreRedactedInAnEtcdDbToo() {
        WalDoctorTest.Run r = WalDoctorTest.run("get", DB, "/registry/secrets/default/s1");
        assertTrue(r.out().contains("<redacted: 7 bytes; --show-secrets to show>"), r.out());
        assertTrue(!r.out().contains("hunter2"), r.out());
    }
}
