package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An etcd data directory after {@code kill -9}: the writes etcd acknowledged that are only in {@code member/wal}
 * (past the db's consistent index: etcd commits its db in batches) are in the tools' view, as etcd serves them once
 * restarted. A real etcd 3.4, its backend batch held open so that every write of the test lives in its WAL only:
 * puts, an update, a delete, a prefix delete, a transaction, a lease granted and one revoked (its key deleted).
 */
class EtcdDataDirTest {
    @TempDir
    Path dir;

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static Process start(Path data, int client, int peer, Path log, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(EtcdCluster.binary(), "--name", "m0", "--data-dir", data.toString(),
                "--listen-client-urls", "http://127.0.0.1:" + client, "--advertise-client-urls", "http://127.0.0.1:" + client,
                "--listen-peer-urls", "http://127.0.0.1:" + peer, "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer,
                "--initial-cluster", "m0=http://127.0.0.1:" + peer));
        cmd.addAll(List.of(more));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String ep = "127.0.0.1:" + client;
        try {
            dev.walkit.testdata.Await.until("etcd at " + ep + " to be healthy", () -> {
                if (!p.isAlive()) throw new AssertionError("etcd exited: " + Files.readString(log));
                Etcdctl.run(ep, null, "endpoint", "health"); // throws until it answers
                return true;
            }, () -> dev.walkit.testdata.Await.read(log));
            return p;
        } catch (AssertionError e) {
            p.destroyForcibly();
            throw e;
        }
    }

    static String run(Object tool, int want, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = tool instanceof WalDoctor ? WalDoctor.run(new PrintWriter(out, true), new PrintWriter(err, true), args)
                : Cli.run(tool, new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(want, code, String.join(" ", args) + "\n" + out + err);
        return out.toString();
    }

    /** key = value (hex) create mod version lease, of every key under /k/. */
    static List<String> served(String ep) throws Exception {
        List<String> out = new ArrayList<>();
        for (Etcdctl.Kv kv : Etcdctl.get(ep, "/k/", 0)) {
            out.add(kv.key() + " = " + HexFormat.of().formatHex(kv.value()) + " " + kv.createRevision() + " " + kv.modRevision() + " " + kv.version()
                    + " " + kv.lease());
        }
        return out;
    }

    static List<String> viewed(Path data) throws Exception {
        JsonNode j = new ObjectMapper().readTree(run(new WalDoctor(), 0, "range", data.toString(), "/k/", "--limit", "0", "-w", "json"));
        List<String> out = new ArrayList<>();
        for (JsonNode kv : j.get("kvs")) {
            out.add(kv.get("key").asText() + " = " + kv.get("value_hex").asText() + " " + kv.get("create_revision").asLong() + " "
                    + kv.get("mod_revision").asLong() + " " + kv.get("version").asLong() + " " + kv.get("lease").asLong());
        }
        return out;
    }

    @Test
    void whatEtcdAcknowledgedBeforeAKill9IsInTheToolsView() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data0"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        int client = freePort();
        int peer = freePort();
        String ep = "127.0.0.1:" + client;
        Process etcd = start(data, client, peer, dir.resolve("etcd-1.log"), "--backend-batch-interval", "1h", "--backend-batch-limit", "100000000");
        try {
            Etcdctl.run(ep, null, "put", "/k/a", "1");
            Etcdctl.run(ep, null, "put", "/k/b", "2");
            Etcdctl.run(ep, null, "put", "/k/a", "3");
            Etcdctl.run(ep, null, "del", "/k/b");
            Etcdctl.run(ep, null, "put", "/k/p/1", "x");
            Etcdctl.run(ep, null, "put", "/k/p/2", "y");
            Etcdctl.run(ep, null, "del", "/k/p/", "--prefix");
            long a = Etcdctl.modRevision(ep, "/k/a");
            assertTrue(Etcdctl.txn(ep, "mod(\"/k/a\") = \"" + a + "\"", "put /k/c txn-won", null));
            assertTrue(!Etcdctl.txn(ep, "mod(\"/k/a\") = \"1\"", "put /k/never x", null));
            long kept = Etcdctl.grant(ep, 600);
            long gone = Etcdctl.grant(ep, 600);
            Etcdctl.run(ep, null, "put", "/k/d", "leased", "--lease=" + Long.toHexString(kept));
            Etcdctl.run(ep, null, "put", "/k/e", "revoked", "--lease=" + Long.toHexString(gone));
            Etcdctl.run(ep, null, "lease", "revoke", Long.toHexString(gone));
            Etcdctl.run(ep, null, "put", "/k/last", "z".repeat(5000));
        } finally {
            etcd.destroyForcibly(); // SIGKILL: the backend's open batch is lost; the WAL holds every acknowledged entry
            etcd.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        String verify = run(new WalVerify(), 0, data.toString());
        assertTrue(verify.contains("past the consistent index"), verify);
        List<String> view = viewed(data);

        Process again = start(data, client, peer, dir.resolve("etcd-2.log"));
        try {
            List<String> etcdServes = served(ep);
            assertEquals(etcdServes, view, "what the tools read of the data directory is what etcd serves after its restart");
            assertEquals(List.of("/k/a", "/k/c", "/k/d", "/k/last"), etcdServes.stream().map(s -> s.substring(0, s.indexOf(' '))).toList());
        } finally {
            again.destroyForcibly();
            again.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** A data directory of a killed etcd with a few writes in its WAL only; its ports in {@code ports}. */
    Path killed(int[] ports) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        ports[0] = freePort();
        ports[1] = freePort();
        String ep = "127.0.0.1:" + ports[0];
        Process etcd = start(data, ports[0], ports[1], dir.resolve("etcd-1.log"), "--backend-batch-interval", "1h", "--backend-batch-limit", "100000000");
        try {
            for (int i = 0; i < 5; i++) Etcdctl.run(ep, null, "put", "/k/" + i, "value-" + i);
        } finally {
            etcd.destroyForcibly();
            etcd.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        return data;
    }

    /** The WAL file and the offsets of its records (each an 8-byte length field, then the record and its padding). */
    static List<long[]> records(Path walFile) throws Exception {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(walFile)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        List<long[]> out = new ArrayList<>();
        int at = 0;
        while (at + 8 <= b.limit() && b.getLong(at) != 0) {
            long field = b.getLong(at);
            long len = field & 0x00ffffffffffffffL;
            int pad = field < 0 ? (int) ((field >>> 56) & 7) : 0;
            out.add(new long[] {at, len});
            at += 8 + (int) len + pad;
        }
        return out;
    }

    static Path walFile(Path data) throws Exception {
        try (var s = Files.list(data.resolve("member/wal"))) {
            return s.filter(p -> p.toString().endsWith(".wal")).sorted().reduce((x, y) -> y).orElseThrow();
        }
    }

    @Test
    void aTornLastRecordIsWhatEtcdDropsAndADamagedOneBeforeItStopsIt() throws Exception {
        int[] ports = new int[2];
        Path data = killed(ports);
        Path wal = walFile(data);
        List<long[]> recs = records(wal);
        long[] last = recs.get(recs.size() - 1);
        // The file ends in the middle of its last record (a crash before the write reached the disk whole).
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(last[0] + 8 + last[1] / 2);
        }
        String verify = run(new WalVerify(), 0, data.toString());
        assertTrue(verify.contains("a torn tail (a write cut short by the crash, never acknowledged; etcd drops it)"), verify);
        List<String> view = viewed(data);
        Process again = start(data, ports[0], ports[1], dir.resolve("etcd-2.log"));
        try {
            assertEquals(served("127.0.0.1:" + ports[0]), view, "etcd repairs the torn tail and serves what is before it");
        } finally {
            again.destroyForcibly();
            again.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void aRecordFailingItsCrcBeforeTheEndIsDamage() throws Exception {
        Path data = killed(new int[2]);
        Path wal = walFile(data);
        List<long[]> recs = records(wal);
        long[] mid = recs.get(recs.size() - 3);
        byte[] b = Files.readAllBytes(wal);
        b[(int) (mid[0] + 8 + mid[1] - 1)] ^= 0x01; // the record's last data byte
        Files.write(wal, b);
        String verify = run(new WalVerify(), 3, data.toString());
        assertTrue(verify.matches("(?s).*member/wal: " + wal.getFileName().toString().replace(".", "\\.") + " at offset " + mid[0]
                + ": a record of type \\d fails its crc \\(the chain is broken: etcd stops here\\).*"), verify);
    }
}
