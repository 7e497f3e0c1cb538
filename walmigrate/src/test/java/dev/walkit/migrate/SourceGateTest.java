package dev.walkit.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.LogBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * walmigrate's gate is the pass's verdict, the one walverify gives for the same bytes: a healthy log copied whole
 * (exit 0); a torn tail only: the complete transactions, said in one line (exit 1); damage anywhere else, or a
 * duplicated tail (a rule broken): nothing (exit 3), unless --policy says what to keep, refused where walrecover
 * refuses it.
 */
class SourceGateTest {
    @TempDir
    Path dir;

    /** The verdict walverify prints for {@code wal}: the pass's. */
    static String verdict(Path wal) throws Exception {
        return dev.walkit.format.pass.Pass.read(wal, dev.walkit.format.pass.Level.SEMANTIC, null).verdict();
    }

    /** The keys of the WAL that {@code --out-wal DIR} wrote, with their values. */
    static Map<String, String> written(Path dir) throws Exception {
        Map<String, String> got = new TreeMap<>();
        try (WalSource w = WalSource.open(dir)) {
            while (w.hasNext()) {
                SourceKey k = w.next();
                got.put(new String(k.key(), StandardCharsets.UTF_8), new String(k.value(), StandardCharsets.UTF_8));
            }
        }
        return got;
    }

    @Test
    void aHealthyLogIsCopiedWholeExitZero() throws Exception {
        Path wal = LogBuilder.write(dir, "wal", LogBuilder.puts(10).bytes());
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-wal", dir.resolve("out").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err());
        assertEquals(10, written(dir.resolve("out")).size());
    }

    @Test
    void aTornTailIsLeftOutAsTheStoreDropsItSaidInOneLineExitOne() throws Exception {
        byte[] log = LogBuilder.puts(10).bytes();
        Path wal = LogBuilder.write(dir, "wal", Arrays.copyOf(log, log.length - 7)); // the last record cut short
        WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--out-wal", dir.resolve("out").toString());
        assertEquals(1, r.exit(), "walverify's exit for a torn tail: " + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("walmigrate: " + wal + ": a torn tail (") && r.err().contains("the complete transactions are copied"), r.err());
        Map<String, String> got = written(dir.resolve("out"));
        assertEquals(9, got.size(), "the nine complete transactions");
        assertFalse(got.containsKey("/registry/configmaps/default/cm-10"), "the torn record's key");
        WalMigrateTest.Run dry = WalMigrateTest.run("wal", "--wal", wal.toString(), "--dry-run", "-w", "json");
        assertEquals(1, dry.exit(), dry.err());
        assertEquals(9, new ObjectMapper().readTree(dry.out()).get("source_keys").asLong(), dry.out());
    }

    @Test
    void damageAndADuplicatedTailAreRefusedExitThreeAsWalverifySays() throws Exception {
        LogBuilder b = LogBuilder.puts(10);
        byte[] crc = b.bytes();
        crc[(int) b.offset(4) + b.length(4) - 1] ^= 1; // record 4's CRC: a valid record follows
        Path damaged = LogBuilder.write(dir, "damaged", crc);
        // A duplicated tail: the last three records written again (a revision not above the last applied: a rule broken).
        byte[] once = b.bytes();
        int from = (int) b.offset(7);
        byte[] dup = Arrays.copyOf(once, once.length + (once.length - from));
        System.arraycopy(once, from, dup, once.length, once.length - from);
        Path duplicated = LogBuilder.write(dir, "duplicated", dup);
        for (Path wal : new Path[] {damaged, duplicated}) {
            WalMigrateTest.Run r = WalMigrateTest.run("wal", "--wal", wal.toString(), "--dry-run");
            assertEquals(3, r.exit(), wal + ": " + r.out() + r.err());
            assertEquals("damaged", verdict(wal), "walverify says damaged too");
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().startsWith("walmigrate: " + wal + ": the WAL is damaged (") && r.err().contains("nothing copied")
                    && r.err().contains("--policy salvage|point-in-time|tolerate-tail"), r.err());
            assertEquals("", r.out(), "no report of a copy");
        }
    }

    @Test
    void policySalvageCopiesWhatItKeepsAndTolerateTailRefusesDamageBeforeTheTail() throws Exception {
        LogBuilder b = LogBuilder.puts(10);
        byte[] log = b.bytes();
        log[(int) b.offset(4) + b.length(4) - 1] ^= 1; // revision 5's CRC
        Path wal = LogBuilder.write(dir, "wal", log);
        WalMigrateTest.Run salvage = WalMigrateTest.run("wal", "--wal", wal.toString(), "--policy", "salvage", "--out-wal", dir.resolve("out").toString());
        assertEquals(0, salvage.exit(), salvage.err());
        assertTrue(salvage.err().contains("policy salvage: copying what it keeps, revision 10, 9 live keys"), salvage.err());
        Map<String, String> got = written(dir.resolve("out"));
        assertEquals(9, got.size());
        assertFalse(got.containsKey("/registry/configmaps/default/cm-5"), "the damaged record's transaction is lost");
        WalMigrateTest.Run tail = WalMigrateTest.run("wal", "--wal", wal.toString(), "--policy", "tolerate-tail", "--dry-run");
        assertEquals(3, tail.exit(), tail.err());
        assertTrue(tail.err().contains("policy tolerate-tail: crc-mismatch at offset " + b.offset(4) + " is not at the tail"), tail.err());
        WalMigrateTest.Run absolute = WalMigrateTest.run("wal", "--wal", wal.toString(), "--policy", "absolute", "--dry-run");
        assertEquals(3, absolute.exit(), absolute.err());
        assertTrue(absolute.err().contains("policy absolute: "), absolute.err());
        WalMigrateTest.Run bad = WalMigrateTest.run("wal", "--wal", wal.toString(), "--policy", "everything", "--dry-run");
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(Files.notExists(dir.resolve("out2")));
    }
}
