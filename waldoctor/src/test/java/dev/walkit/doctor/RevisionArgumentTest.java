package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
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

    /** The shell's answers (stdout, then stderr) to {@code commands} on {@code store}. */
    static String shell(String store, String commands) throws Exception {
        try (StoreHistory x = Pass.history(java.nio.file.Path.of(store), null)) {
            java.io.StringWriter out = new java.io.StringWriter();
            java.io.StringWriter err = new java.io.StringWriter();
            Shell.piped(new ShellContext(x, false), new java.io.BufferedReader(new java.io.StringReader(commands)),
                    new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true));
            return out + "--- stderr\n" + err;
        }
    }

    @Test
    void aRevisionInDamagedBytesSaysSo() throws Exception {
        // The sample's CRC mismatch at 784,241 lies between revisions 1285 and 1287: 1286 is in its bytes.
        String sample = Fixtures.path("sample/wal").toString();
        String s = shell(sample, "at 1286\nat 1285\ntxn 1286\nget /registry/none --rev 1286\n");
        String window = "revision 1286 lies in damaged bytes (crc-mismatch at offset 784,241, between revisions 1285 and 1287 (up to 1 lost))";
        assertTrue(s.contains("viewing revision 1286\nnote: " + window + ": what is shown is the state as of the revision before it\n"), s);
        assertTrue(s.contains("viewing revision 1285\n") && !s.contains("revision 1285 lies"), s);
        assertTrue(s.contains("no applied transaction at revision 1286: " + window), s);
        assertEquals(3, s.split(java.util.regex.Pattern.quote(window), -1).length - 1, "at, txn and get --rev name it: " + s);
    }

    @Test
    void aLeaseIdIsTakenAsItIsPrintedInHexAsEtcdctlReadsIt() throws Exception {
        // An etcd db's leases are printed as etcdctl prints them (16 hex digits), the decimal beside: the one with a live key.
        String db = Fixtures.path("etcd/snapshot.db").toString();
        String leases = shell(db, "leases\n");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("lease ([0-9a-f]{16}) \\((\\d+)\\): TTL \\d+s, 1 live key").matcher(leases);
        assertTrue(m.find(), leases);
        String byHex = shell(db, "lease " + m.group(1) + "\n");
        assertTrue(byHex.contains("1 key(s)\n"), byHex);
        assertEquals(byHex, shell(db, "lease 0x" + m.group(1) + "\n"), "hex with 0x");
        assertEquals(byHex, shell(db, "lease " + m.group(1).replaceFirst("^0+", "") + "\n"), "without the leading zeros");
        assertTrue(shell(db, "lease " + m.group(2) + "\n").contains("not a lease ID: " + m.group(2)) || !shell(db, "lease " + m.group(2) + "\n").contains("1 key(s)"),
                "the decimal is read as hex, as etcdctl reads it");
        assertTrue(shell(db, "lease zz\n").contains("not a lease ID: zz"));
        // One-shot, of a damaged store: a usage error (exit 2), one line, not an answer the damage cut short.
        WalDoctorTest.Run bad = WalDoctorTest.run("lease", Fixtures.path("sample/wal").toString(), "zz");
        assertEquals(2, bad.exit(), bad.err());
        assertEquals(1, bad.err().lines().count(), bad.err());
        assertEquals(0x1234, dev.walkit.cli.LeaseId.parse("0x1234"));
        assertEquals(0x1234, dev.walkit.cli.LeaseId.parse("1234"), "digits are hex, as etcdctl lease timetolive 1234 reads them");
        assertEquals(-1L, dev.walkit.cli.LeaseId.parse("ffffffffffffffff"));
        assertEquals("0000000000001234", dev.walkit.cli.LeaseId.text(0x1234));
    }
}
