package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    void secretsAreRedactedInAnEtcdDbToo() {
        WalDoctorTest.Run r = WalDoctorTest.run("get", DB, "/registry/secrets/default/s1");
        assertTrue(r.out().contains("<redacted: 7 bytes; --show-secrets to show>"), r.out());
        assertTrue(!r.out().contains("hunter2"), r.out());
    }
}
