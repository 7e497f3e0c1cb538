package dev.walkit.recover;

import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import dev.walkit.format.replay.StateDigest;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The threads that follow a recovery WAL as it is written (read-back, SHA-256, writeback) give, once it is
 * closed, what reading the whole file afterwards gives, however the writes are cut at record boundaries;
 * they stop when it is abandoned.
 */
class FollowedOutputTest {
    @TempDir
    Path dir;

    /** The log, its state digest as Replayer gives it, and the offsets where its records end. */
    private record Log(byte[] bytes, String digest, List<Long> ends) {
    }

    private Log log() throws Exception {
        Path gen = dir.resolve("gen");
        // Over 2 MiB: more than one read window, and more than one writeback step of 1 MiB (below).
        new K8sWalGenerator(K8sWalGenerator.Options.of(5, 3 << 20)).write(gen);
        ReaderOptions ro = ReaderOptions.defaults();
        List<Long> ends = new ArrayList<>();
        try (WalFile f = WalFile.open(gen, ro.maxRecLen())) {
            WalReader r = new WalReader(f, ro);
            for (ReadResult x; (x = r.next()) != null; ) ends.add(((RecordView) x).offset() + ((RecordView) x).length());
            Replayer s = Replay.run(f, ro, Replayer.Options.defaults(), null).state();
            return new Log(Files.readAllBytes(gen), StateDigest.of(s.keys(), s.revision(), f::readFully), ends);
        }
    }

    /** Writes {@code bytes} to a new file in pieces ending at random record boundaries, telling {@code out}. */
    private static void write(Path p, byte[] bytes, List<Long> ends, FollowedOutput out) throws Exception {
        Random r = new Random(3);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            long at = 0;
            for (int i = 0; i < ends.size(); ) {
                i = Math.min(ends.size() - 1, i + r.nextInt(400));
                long end = ends.get(i++);
                ch.write(ByteBuffer.wrap(bytes, (int) at, (int) (end - at)), at);
                at = end;
                out.written(at);
            }
            out.closed(at);
        }
    }

    @Test
    void whatFollowsTheFileIsWhatReadingItAfterwardsGives() throws Exception {
        Log log = log();
        Path p = Files.createFile(dir.resolve("out"));
        FollowedOutput out = new FollowedOutput(p, 1 << 20, OutputChecksum.SHA256);
        write(p, log.bytes(), log.ends(), out);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertEquals(log.digest(), out.stateDigest());
            assertEquals(sha256(log.bytes()), out.checksum());
            assertTrue(out.hashedByReadBack(), "one read of the file: the read-back's");
            out.synced();
        });
    }

    @Test
    void aDamagedFileIsNotTakenByTheLightReadBack() throws Exception {
        Log log = log();
        byte[] damaged = log.bytes().clone();
        damaged[(int) (long) log.ends().get(log.ends().size() / 2) + 20] ^= 0x40;  // inside a record mid-file
        Path p = Files.createFile(dir.resolve("out"));
        FollowedOutput out = new FollowedOutput(p, 1 << 20, OutputChecksum.SHA256);
        write(p, damaged, log.ends(), out);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertNull(out.stateDigest());
            // The read-back stopped at the damage: the hash is a read of its own, of the whole file.
            assertFalse(out.hashedByReadBack());
            assertEquals(sha256(damaged), out.checksum());
        });
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void anAbandonedFileStopsItsFollowers() throws Exception {
        Path p = Files.write(dir.resolve("out"), new byte[1 << 20]);
        FollowedOutput out = new FollowedOutput(p, 1 << 20, OutputChecksum.SHA256);
        out.written(1 << 19);
        out.cancel();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertThrows(CancellationException.class, out::stateDigest);
            assertThrows(CancellationException.class, out::checksum);
            assertThrows(CancellationException.class, out::synced);
        });
    }
}
