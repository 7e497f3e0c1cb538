package dev.walkit.verify;

import dev.walkit.format.Fixtures;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --level values}: a stored Kubernetes value that the apiserver could not have written is damage in every
 * store, named by key and revision (and page, for etcd's db), where every other level (and the store's own check)
 * calls the store healthy; the same store with its real values is healthy at that level.
 */
class ValuesLevelTest {
    @TempDir
    Path dir;

    static byte[] pod() throws Exception {
        return Files.readAllBytes(Fixtures.path("k8s-values/storage-pod.bin"));
    }

    /** The pod's object with its first tag zeroed: what no apiserver writes. */
    static byte[] damagedPod() throws Exception {
        byte[] p = pod();
        p[ValueCheckRaw.rawStart(p)] = 0;
        return p;
    }

    static final class ValueCheckRaw {
        static int rawStart(byte[] pod) {
            int i = 4 + 2 + pod[5];
            i++;
            while ((pod[i] & 0x80) != 0) i++;
            return i + 1;
        }
    }

    static final byte[] KEY = "/registry/pods/default/pi-dqtsw".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aWalRecordWithAnIntactCrcAndABadValue() throws Exception {
        LogBuilder good = new LogBuilder().add(KeyValue.put(KEY, 1, 1, 1, pod(), 0));
        Path ok = LogBuilder.write(Files.createDirectories(dir.resolve("ok")), "wal", good.bytes());
        assertEquals(0, WalVerifyTest.run("--level", "values", ok.toString()).exit());
        LogBuilder bad = new LogBuilder().add(KeyValue.put(KEY, 1, 1, 1, pod(), 0)).add(KeyValue.put(KEY, 1, 2, 2, damagedPod(), 0));
        Path wal = LogBuilder.write(Files.createDirectories(dir.resolve("bad")), "wal", bad.bytes());
        assertEquals(0, WalVerifyTest.run("--level", "semantic", wal.toString()).exit(), "healthy below the values level");
        WalVerifyTest.Run r = WalVerifyTest.run("--level", "values", wal.toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("undecodable-value at offset " + String.format("%,d", bad.offset(1)) + " (revision 2): key /registry/pods/default/pi-dqtsw: its object: field number 0"),
                r.out());
    }

    @Test
    void anEtcdValueNamedByPage() throws Exception {
        Path db = dir.resolve("snapshot.db");
        try (EtcdCluster e = EtcdCluster.start(dir.resolve("etcd"), 1)) {
            Etcdctl.run(e.endpoints(), new String(damagedPod(), StandardCharsets.ISO_8859_1), "put", new String(KEY, StandardCharsets.US_ASCII));
            Etcdctl.run(e.endpoints(), null, "snapshot", "save", db.toString());
        }
        // etcdctl sends stdin as UTF-8: the value in the db is the damaged pod's bytes as UTF-8, still not a Pod.
        assertEquals(0, WalVerifyTest.run("--level", "semantic", db.toString()).exit());
        WalVerifyTest.Run r = WalVerifyTest.run("--level", "values", db.toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().matches("(?s).*bbolt damage: page \\d+ at offset \\d+: revision 2\\.0 \\(key /registry/pods/default/pi-dqtsw\\): .*"), r.out());
    }

    @Test
    void aKineRowsValue() throws Exception {
        Path db = dir.resolve("kine").resolve("state.db");
        Files.createDirectories(db.getParent());
        new KineDbGenerator(KineDbGenerator.Options.of(2, 200)).write(db);
        assertEquals(0, WalVerifyTest.run("--level", "values", db.toString()).exit(), "the generator's values are whole");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             PreparedStatement p = c.prepareStatement("INSERT INTO kine (name, created, deleted, create_revision, prev_revision, lease, value, old_value) "
                     + "VALUES (?, 1, 0, 0, 0, 0, ?, NULL)")) {
            p.setBytes(1, KEY);
            p.setBytes(2, "{\"kind\":\"Pod\",".getBytes(StandardCharsets.US_ASCII)); // JSON cut short
            p.executeUpdate();
        }
        assertEquals(0, WalVerifyTest.run("--level", "semantic", db.toString()).exit());
        WalVerifyTest.Run r = WalVerifyTest.run("--level", "values", db.toString());
        assertEquals(3, r.exit(), r.out());
        assertTrue(r.out().contains("key /registry/pods/default/pi-dqtsw: JSON that does not parse"), r.out());
    }
}
