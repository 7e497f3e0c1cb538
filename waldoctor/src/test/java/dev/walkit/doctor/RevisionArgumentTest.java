package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A revision is read as etcd reads it, in every command and every format: past the end of the log it is an error (the
 * JSON form answered the latest value and said "revision": 99999), below the compact revision it is compacted, and 0
 * is the latest. One check ({@link Commands#revisionProblem}) for the shell and the one-shot commands.
 */
class RevisionArgumentTest {
    static final String WAL = Fixtures.path("vectors/small/wal").toString();
    static final String KEY = "/registry/configmaps/ns0/cm-0";

    @Test
    void aFutureRevisionIsAnErrorInEveryFormat() throws Exception {
        for (String[] format : new String[][] {{"-w", "json"}, {"-w", "table"}, {}}) {
            String[] args = new String[format.length + 5];
            System.arraycopy(new String[] {"get"}, 0, args, 0, 1);
            System.arraycopy(format, 0, args, 1, format.length);
            System.arraycopy(new String[] {WAL, KEY, "--rev", "99999"}, 0, args, 1 + format.length, 4);
            WalDoctorTest.Run r = WalDoctorTest.run(java.util.Arrays.copyOf(args, format.length + 5));
            assertEquals(1, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
            assertTrue((r.out() + r.err()).contains("revision 99999 is past the end of the log (its last revision is 325)"), r.out() + r.err());
            assertTrue(!r.out().contains("\"revision\":99999"), r.out());
        }
    }

    @Test
    void revisionZeroIsTheLatestAsEtcdctlTakesIt() throws Exception {
        WalDoctorTest.Run zero = WalDoctorTest.run("get", "-w", "json", WAL, KEY, "--rev", "0");
        WalDoctorTest.Run latest = WalDoctorTest.run("get", "-w", "json", WAL, KEY);
        assertEquals(0, zero.exit(), zero.err());
        JsonNode j = new ObjectMapper().readTree(zero.out());
        assertEquals(325, j.get("revision").asLong());
        assertEquals(latest.out(), zero.out());
        WalDoctorTest.Run text = WalDoctorTest.run("get", WAL, KEY, "--rev", "0");
        assertEquals(0, text.exit(), text.out() + text.err());
        assertEquals(WalDoctorTest.run("get", WAL, KEY).out(), text.out());
    }
}
