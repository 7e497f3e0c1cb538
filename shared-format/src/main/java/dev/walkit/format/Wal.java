package dev.walkit.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Entry points: resolve a path (a WAL file or a data directory), tell the format apart (neither has a
 * magic number: docs/format.md §8 — the format whose first record validates earliest wins, v2 on a
 * tie), and open an {@link EntrySource}.
 */
public final class Wal {
    public static final String WAL_FILE = "wal";
    public static final String COMPACT_FILE = "wal.compact";
    /** The intent file of an output's switch into place (output.PairSwitch): there only while a run puts a new pair in. */
    public static final String SWITCH_INTENT = ".walkit.switch";

    private Wal() {
    }

    /** {@code path} itself, or {@code path/wal} for a data directory. */
    public static Path resolve(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            Path wal = path.resolve(WAL_FILE);
            try {
                java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(wal, java.nio.file.attribute.BasicFileAttributes.class);
                if (a.isDirectory()) throw new IOException(wal + ": a directory, not a WAL file");
            } catch (java.nio.file.NoSuchFileException e) {
                if (Files.exists(path.resolve(SWITCH_INTENT))) {
                    throw new IOException(path + ": no 'wal' file: a run that writes one (walrecover --out, walmigrate --out-wal) crashed while it put "
                            + "its output in place (" + SWITCH_INTENT + " is there); run the same command again to finish it");
                }
                throw new IOException(path + ": a directory without a 'wal' file");
            } catch (java.nio.file.AccessDeniedException e) {
                throw new IOException(path + ": permission denied: this user cannot enter the directory (its 'wal' cannot be read)");
            }
            return wal;
        }
        try {
            Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException(path + ": no such file or directory");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IOException(path + ": permission denied: this user cannot reach it (a directory on the way is closed)");
        }
        return path;
    }

    /** The leftover {@code wal.compact} beside {@code wal}, or null. */
    public static Path leftoverCompaction(Path walFile) {
        Path dir = walFile.toAbsolutePath().getParent();
        if (dir == null) return null;
        Path c = dir.resolve(COMPACT_FILE);
        return Files.exists(c) ? c : null;
    }

    /** Result of sniffing: the format, and the offset of its first valid record (the size if none). */
    public record Sniff(WalFormat format, long firstValid, boolean anyValid) {
    }

    public static Sniff sniff(WalFile file, int maxRecLen) {
        long size = file.size();
        if (size == 0) return new Sniff(WalFormat.V2, 0, false);
        Set<CrcRange> all = EnumSet.of(CrcRange.PAYLOAD_ONLY, CrcRange.SKIP_FLAGS);
        long v2 = validAt(file, 0, Framing.v2(maxRecLen), all) ? 0 : new Resync(file, Framing.v2(maxRecLen)).findNext(0, all);
        if (v2 == 0) return new Sniff(WalFormat.V2, 0, true);
        long v1 = new Resync(file, Framing.v1(maxRecLen)).findNext(0, Set.of());
        if (v1 < v2) return new Sniff(WalFormat.V1, v1, true);
        return new Sniff(WalFormat.V2, v2, v2 < size);
    }

    private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

    /**
     * Sniffs {@code file}, or says why it is not a WAL: empty, a SQLite database (kine's), or no record of
     * either format validates anywhere in it under any CRC range (so a log with the crc range bug is a WAL,
     * whichever of its records is damaged). The one definition every tool uses.
     */
    public static Sniff requireWal(WalFile file, int maxRecLen) throws NotAWalException {
        if (file.size() == 0) throw new NotAWalException(file.path() + ": not a WAL: the file is empty");
        if (file.size() >= SQLITE_MAGIC.length && Arrays.equals(file.read(0, SQLITE_MAGIC.length), SQLITE_MAGIC)) {
            throw new NotAWalException(file.path() + ": not a WAL: this is a SQLite database (kine's state.db? see walmigrate)");
        }
        Sniff s = sniff(file, maxRecLen);
        if (!s.anyValid()) {
            throw new NotAWalException(file.path() + ": not a WAL: no valid v2 or v1 record anywhere in " + file.size() + " bytes");
        }
        return s;
    }

    private static boolean validAt(WalFile file, long at, Framing framing, Set<CrcRange> alts) {
        // A file shorter than the smallest frame holds no record (and has no header to read).
        if (file.size() - at < framing.minFrame()) return false;
        ByteBuffer buf = file.bufferAt(at, framing.headerLength());
        int idx = file.indexIn(at);
        long frame = framing.plausibleFrame(buf, idx, file.size() - at);
        if (frame <= 0) return false;
        int stored = file.intAt(at + frame - RecordLayout.CRC_LENGTH);
        CRC32C crc = new CRC32C();
        file.updateCrc(crc, at, at + frame - RecordLayout.CRC_LENGTH);
        if ((int) crc.getValue() == stored) return true;
        for (CrcRange r : alts) {
            crc.reset();
            file.updateCrc(crc, at + r.start(), at + frame - RecordLayout.CRC_LENGTH);
            if ((int) crc.getValue() == stored) return true;
        }
        return false;
    }
}
