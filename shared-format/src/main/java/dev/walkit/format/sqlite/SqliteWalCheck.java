package dev.walkit.format.sqlite;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of a database's SQLite write-ahead log, and the committed transactions it lost without SQLite saying so.
 * SQLite reads the {@code -wal}'s frames up to the first whose salts or chained checksum fail and keeps those up to the
 * last commit frame (sqlite.org/fileformat2.html §4.3); whatever follows is silently dropped. Three things tell when
 * what was dropped had been committed:
 * <ul>
 *   <li>the {@code -shm}'s wal-index header (two equal copies with a valid checksum, of this {@code -wal}'s salts)
 *   counts the frames committed ({@code mxFrame}): more than the valid chain holds means committed frames lost;</li>
 *   <li>after the break, frames of this cycle's salts that end a transaction (a commit field): commits written after
 *   the damaged frame, which SQLite no longer reads;</li>
 *   <li>a {@code -shm} that counts frames while the {@code -wal} is gone, or a {@code -wal} header whose checksum
 *   fails (SQLite then ignores every frame).</li>
 * </ul>
 * A partial frame at the end, or frames after the last commit, are a transaction in progress at a crash: said, not
 * damage.
 */
public final class SqliteWalCheck {
    private static final int VERSION = 3007000;
    /** The wal-index header: two copies of 48 bytes at the start of the -shm. */
    private static final int INDEX_HEADER = 48;

    /**
     * @param present       whether a -wal is there (and not empty)
     * @param validFrames   frames in the chain SQLite reads
     * @param committed     of those, the frames up to the last commit (what SQLite keeps)
     * @param partialBytes  bytes of a frame cut short at the end (0: none)
     * @param shmFrames     the -shm's count of committed frames; -1 when it has none to give
     * @param damage        committed transactions lost, each a line naming the evidence
     */
    public record State(boolean present, int validFrames, int committed, long partialBytes, long shmFrames, List<String> damage) {
        public State {
            damage = List.copyOf(damage);
        }

        /** One line of facts: {@code -wal: 59 valid frame(s), 52 committed; -shm counts 52}. */
        public String facts() {
            if (!present) return shmFrames > 0 ? "no -wal; the -shm counts " + shmFrames + " committed frame(s)" : "no -wal";
            StringBuilder b = new StringBuilder("-wal: " + validFrames + " valid frame(s), " + committed + " committed");
            if (validFrames > committed) b.append(", ").append(validFrames - committed).append(" after the last commit (a transaction in progress: SQLite drops it)");
            if (partialBytes > 0) b.append(", a partial frame of ").append(partialBytes).append(" bytes at the end");
            if (shmFrames >= 0) b.append("; the -shm counts ").append(shmFrames).append(" committed");
            return b.toString();
        }
    }

    private SqliteWalCheck() {
    }

    /** The state of {@code db}'s {@code -wal} beside it, checked against its {@code -shm}. Read before any SQLite connection opens it. */
    public static State inspect(Path db) throws IOException {
        Path wal = db.resolveSibling(db.getFileName() + "-wal");
        Path shm = db.resolveSibling(db.getFileName() + "-shm");
        long[] index = Files.isRegularFile(shm) ? indexHeader(shm) : null; // {mxFrame, salt1, salt2}
        List<String> damage = new ArrayList<>();
        if (!Files.isRegularFile(wal) || Files.size(wal) == 0) {
            if (index != null && index[0] > 0) {
                damage.add(db.getFileName() + "-wal is missing, but its -shm counts " + index[0] + " committed frame(s): the transactions they held are lost");
            }
            return new State(false, 0, 0, 0, index == null ? -1 : index[0], damage);
        }
        try (FileChannel ch = FileChannel.open(wal)) {
            long size = ch.size();
            SqliteWal.Chain c = SqliteWal.chain(ch, 0);
            if (c.headerProblem() != null) {
                long frames = c.pageSize() >= 512 && c.pageSize() <= 65536 ? Math.max(0, size - SqliteWal.HEADER) / (SqliteWal.FRAME_HEADER + (long) c.pageSize()) : -1;
                damage.add(wal.getFileName() + ": " + c.headerProblem() + (frames >= 0 ? ": SQLite ignores all " + frames + " frame(s) of it" : "")
                        + lostWhen(index));
                return new State(true, 0, 0, size < SqliteWal.HEADER ? size : 0, index == null ? -1 : index[0], damage);
            }
            long frame = (long) SqliteWal.FRAME_HEADER + c.pageSize();
            long partial = 0;
            int commitsAfter = 0;
            if (c.broke() != null) {
                // Frames of this cycle after the break that end a transaction: commits SQLite no longer reads.
                ByteBuffer f = ByteBuffer.allocate(SqliteWal.FRAME_HEADER);
                for (long next = c.end() + frame; next + frame <= size; next += frame) {
                    f.clear();
                    read(ch, f, next);
                    if (f.getInt(8) == c.salt1() && f.getInt(12) == c.salt2() && f.getInt(4) != 0) commitsAfter++;
                }
            } else {
                partial = size - c.end();
            }
            long shmFrames = index != null && index[1] == (c.salt1() & 0xffffffffL) && index[2] == (c.salt2() & 0xffffffffL) ? index[0] : -1;
            if (shmFrames > c.committed()) {
                damage.add(wal.getFileName() + ": the -shm counts " + shmFrames + " committed frame(s), the -wal's chain holds " + c.committed()
                        + (c.broke() != null ? " (" + c.broke() + ")" : partial > 0 ? " (it ends in a partial frame of " + partial + " bytes)" : " (it ends there)")
                        + ": committed transactions are lost");
            } else if (commitsAfter > 0) {
                damage.add(wal.getFileName() + ": " + c.broke() + ", and " + commitsAfter + " commit frame(s) of this -wal follow it: SQLite reads none of them, "
                        + "so at least " + commitsAfter + " committed transaction(s) are lost");
            }
            return new State(true, c.valid(), c.committed(), partial, index == null ? -1 : shmFrames, damage);
        }
    }

    private static String lostWhen(long[] index) {
        return index != null && index[0] > 0 ? "; the -shm counts " + index[0] + " committed frame(s): their transactions are lost" : "";
    }

    /** {mxFrame, salt1, salt2} of the -shm's wal-index header when both copies agree and its checksum holds; else null. */
    private static long[] indexHeader(Path shm) throws IOException {
        try (FileChannel ch = FileChannel.open(shm)) {
            ByteBuffer b = ByteBuffer.allocate(2 * INDEX_HEADER);
            if (read(ch, b, 0) < 2 * INDEX_HEADER) return null;
            for (int i = 0; i < INDEX_HEADER; i++) if (b.get(i) != b.get(INDEX_HEADER + i)) return null;
            ByteBuffer n = b.duplicate().order(ByteOrder.nativeOrder());
            if (n.getInt(0) != VERSION || b.get(12) == 0) return null; // iVersion, isInit
            int[] sum = SqliteWal.checksum(n, 0, 40, ByteOrder.nativeOrder(), 0, 0);
            if (sum[0] != n.getInt(40) || sum[1] != n.getInt(44)) return null;
            // aSalt as the -wal header holds them (its words in the -wal's byte order, copied as they are).
            ByteBuffer be = b.duplicate().order(ByteOrder.BIG_ENDIAN);
            return new long[] {n.getInt(16) & 0xffffffffL, be.getInt(32) & 0xffffffffL, be.getInt(36) & 0xffffffffL};
        }
    }

    private static int read(FileChannel ch, ByteBuffer b, long at) throws IOException {
        int n = 0;
        while (b.hasRemaining()) {
            int r = ch.read(b, at + b.position());
            if (r < 0) break;
            n += r;
        }
        return n;
    }
}
