package dev.walkit.verify;

import dev.walkit.format.kine.KineCheck;
import dev.walkit.format.kine.KineDb;

import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.sqlite.SqliteWalCheck;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kine's committed transactions that live only in its {@code -wal}, lost by damage SQLite passes over in silence: each
 * case damages a named byte of a db that kine left mid-run (20 transactions committed in the -wal, its -shm counting
 * them) and asserts the finding; a transaction in progress at a crash stays healthy.
 */
class KineWalDamageTest {
    @TempDir
    Path dir;

    Path db;
    Path wal;
    int pageSize;
    long frame;
    int frames;

    @BeforeEach
    void kineLeftMidRun() throws Exception {
        db = dir.resolve("state.db");
        new KineDbGenerator(new KineDbGenerator.Options(7, 120, false, false, 20, 0, "")).write(db);
        wal = dir.resolve("state.db-wal");
        byte[] h = new byte[32];
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "r")) {
            f.readFully(h);
        }
        pageSize = ByteBuffer.wrap(h).getInt(8);
        frame = 24L + pageSize;
        frames = (int) ((Files.size(wal) - 32) / frame);
    }

    long frameAt(int n) {
        return 32 + (n - 1) * frame;
    }

    int lastCommitFrame() throws Exception {
        int last = 0;
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "r")) {
            for (int n = 1; n <= frames; n++) {
                f.seek(frameAt(n) + 4);
                if (f.readInt() != 0) last = n;
            }
        }
        return last;
    }

    void flip(long at, int mask) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ mask);
        }
    }

    Account account() throws Exception {
        try (KineDb k = KineDb.open(db, "test")) {
            return KineCheck.account(k, db, AccountListener::new);
        }
    }

    @Test
    void aDbKineLeftMidRunIsHealthyAndItsWalIsDescribed() throws Exception {
        SqliteWalCheck.State s = SqliteWalCheck.inspect(db);
        assertTrue(s.present() && s.committed() == frames && s.validFrames() == frames && s.shmFrames() == frames, s.toString());
        assertEquals(List.of(), s.damage());
        Account a = account();
        assertTrue(a.healthy(), a.store().damage().toString());
        assertTrue(a.store().detail().contains("-wal: " + frames + " valid frame(s), " + frames + " committed; the -shm counts " + frames + " committed"),
                a.store().detail());
    }

    @Test
    void aWalCutMidFrameLosesCommitsTheShmCounted() throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(frameAt(frames) + frame / 2); // the last frame, a commit, cut in half
        }
        assertEquals(List.of("state.db-wal: the -shm counts " + frames + " committed frame(s), the -wal's chain holds " + lastCommitBefore(frames)
                + " (it ends in a partial frame of " + (frame / 2) + " bytes): committed transactions are lost"), SqliteWalCheck.inspect(db).damage());
        assertTrue(!account().healthy());
        WalVerifyTest.Run r = WalVerifyTest.run(db.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("committed transactions are lost"), r.out());
    }

    int lastCommitBefore(int n) throws Exception {
        int last = 0;
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "r")) {
            for (int i = 1; i < n; i++) {
                f.seek(frameAt(i) + 4);
                if (f.readInt() != 0) last = i;
            }
        }
        return last;
    }

    @Test
    void aFlippedSaltChecksumPageNumberOrCommitFieldInAFrameHeaderIsDamage() throws Exception {
        int mid = frames / 2;
        int before = lastCommitBefore(mid);
        for (int[] c : new int[][] {{8, 0x01}, {12, 0x80}, {16, 0x04}, {20, 0x10}, {0, 0xff}, {4, 0x01}}) {
            flip(frameAt(mid) + c[0], c[1]);
            List<String> d = SqliteWalCheck.inspect(db).damage();
            assertEquals(1, d.size(), "frame header byte " + c[0] + ": " + d);
            assertTrue(d.get(0).startsWith("state.db-wal: the -shm counts " + frames + " committed frame(s), the -wal's chain holds " + before
                    + " (frame " + mid + " (offset " + frameAt(mid) + ") "), d.get(0));
            assertTrue(!account().healthy(), "byte " + c[0]);
            flip(frameAt(mid) + c[0], c[1]);
        }
    }

    @Test
    void withoutTheShmCommitsAfterTheBreakStillTell() throws Exception {
        Files.delete(dir.resolve("state.db-shm"));
        int mid = frames / 2;
        flip(frameAt(mid) + 16, 0x04); // the frame's checksum
        List<String> d = SqliteWalCheck.inspect(db).damage();
        assertEquals(1, d.size(), d.toString());
        assertTrue(d.get(0).startsWith("state.db-wal: frame " + mid + " (offset " + frameAt(mid) + ") fails its checksum, and "), d.get(0));
        assertTrue(d.get(0).contains("committed transaction(s) are lost"), d.get(0));
    }

    @Test
    void aDeletedWalOrADamagedWalHeaderIsDamage() throws Exception {
        flip(24, 0x01); // the header's checksum
        assertTrue(SqliteWalCheck.inspect(db).damage().get(0).startsWith("state.db-wal: its header is damaged"), SqliteWalCheck.inspect(db).damage().toString());
        assertTrue(!account().healthy());
        Files.delete(wal);
        assertEquals(List.of("state.db-wal is missing, but its -shm counts " + frames + " committed frame(s): the transactions they held are lost"),
                SqliteWalCheck.inspect(db).damage());
        assertTrue(!account().healthy());
    }

    @Test
    void aTransactionInProgressAtACrashIsNotDamage() throws Exception {
        // A partial frame after the last commit (a write cut by the crash), and whole frames past the last commit.
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw")) {
            f.setLength(frameAt(frames + 1) + 100);
        }
        SqliteWalCheck.State s = SqliteWalCheck.inspect(db);
        assertEquals(List.of(), s.damage());
        assertEquals(100, s.partialBytes());
        assertTrue(s.facts().contains("a partial frame of 100 bytes at the end"), s.facts());
        assertTrue(account().healthy());
    }
}
