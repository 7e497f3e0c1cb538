package dev.walkit.runbooks;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.cli.Cli;
import dev.walkit.doctor.ServedHistory;
import dev.walkit.doctor.serve.EtcdEndpoint;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.recover.WalRecover;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The damaged sample served, and a live-etcd migration pointed at it: the real etcd it fills holds what walrecover then
 * walmigrate wal put into another real etcd (keys, values, leases' keys), byte for byte.
 */
class ServeMigrateTest {
    @TempDir
    Path dir;

    static final Path SAMPLE = Path.of("..", "testdata", "fixtures", "sample", "wal");

    static String run(Object tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(tool, new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(0, code, String.join(" ", args) + "\n" + out + err);
        return out.toString();
    }

    /** Every key with its value and whether it has a lease (the IDs are the target's own). */
    static List<String> contents(String endpoints) throws Exception {
        List<String> out = new ArrayList<>();
        for (Etcdctl.Kv kv : Etcdctl.get(endpoints, "", 0)) {
            out.add(kv.key() + " = " + java.util.HexFormat.of().formatHex(kv.value()) + (kv.lease() != 0 ? " (leased)" : ""));
        }
        return out;
    }

    @Test
    void migratingFromServeEqualsRecoverThenMigrate() throws Exception {
        try (EtcdCluster a = EtcdCluster.start(dir.resolve("a"), 1); EtcdCluster b = EtcdCluster.start(dir.resolve("b"), 1)) {
            Path out = dir.resolve("recovered");
            run(new WalRecover(), "--out", out.toString(), SAMPLE.toString());
            run(new WalMigrate(), "wal", "--wal", out.resolve("wal").toString(), "--endpoints", a.endpoints());
            try (StoreHistory x = Pass.history(SAMPLE, null);
                 EtcdEndpoint e = EtcdEndpoint.start(new ServedHistory(x, 0), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null)) {
                run(new WalMigrate(), "etcd", "--source-endpoints", "127.0.0.1:" + e.port(), "--endpoints", b.endpoints());
            }
            List<String> recovered = contents(a.endpoints());
            assertTrue(recovered.size() > 100, "keys " + recovered.size());
            assertEquals(recovered, contents(b.endpoints()));
        }
    }
}
