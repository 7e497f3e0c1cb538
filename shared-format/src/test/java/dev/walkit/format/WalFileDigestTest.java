package dev.walkit.format;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file hashed as a reader's one pass reads it ({@link WalFile#digestAsRead}): each byte once, in order,
 * though the window is refilled from the start of a record it cut; nothing when the reader skipped bytes
 * or has not reached the end.
 */
class WalFileDigestTest {
    @TempDir
    Path dir;

    /** Over three read windows: records are cut at the window's end and read again in the next. */
    private static final LogBuilder LOG = LogBuilder.puts(40_000);

    private static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }

    private static int readAll(WalReader r) {
        int n = 0;
        for (ReadResult x; (x = r.next()) != null; n++) {
            ReadResult got = x;
            assertTrue(got instanceof RecordView, () -> "damage: " + got);
        }
        return n;
    }

    @Test
    void oneOrderedPassHashesTheWholeFile() throws Exception {
        byte[] all = LOG.bytes();
        assertTrue(all.length > 3 * WalFile.DEFAULT_WINDOW, "a log of " + all.length + " bytes");
        Path p = Files.write(dir.resolve("wal"), all);
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            f.digestAsRead(MessageDigest.getInstance("SHA-256"));
            assertEquals(LOG.count(), readAll(new WalReader(f, ro)));
            assertArrayEquals(sha256(all), f.digestOfAll().digest());
        }
    }

    @Test
    void aFileFollowedAsItIsWrittenIsHashedWhenTheWriterIsDone() throws Exception {
        byte[] all = LOG.bytes();
        Path p = dir.resolve("wal");
        ReaderOptions ro = ReaderOptions.defaults();
        try (FileChannel out = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                WalFile f = WalFile.follow(p, ro.maxRecLen())) {
            f.digestAsRead(MessageDigest.getInstance("SHA-256"));
            WalReader reader = new WalReader(f, ro);
            long at = 0;
            int read = 0;
            for (int cut : new int[] {1, 7, 9_000, 9_001, 25_000, LOG.count()}) {
                long end = cut == LOG.count() ? all.length : LOG.offset(cut);
                out.write(ByteBuffer.wrap(all, (int) at, (int) (end - at)), at);
                at = end;
                f.extendTo(end);
                read += readAll(reader);
                assertNotNull(f.digestOfAll(), "every byte written so far was hashed");
            }
            assertEquals(LOG.count(), read);
            assertArrayEquals(sha256(all), f.digestOfAll().digest());
        }
    }

    @Test
    void aReaderThatSkipsBytesHashesNothing() throws Exception {
        Path p = Files.write(dir.resolve("wal"), LOG.bytes());
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            f.digestAsRead(MessageDigest.getInstance("SHA-256"));
            WalReader r = new WalReader(f, ro);
            r.seek(LOG.offset(20_000));
            assertEquals(LOG.count() - 20_000, readAll(r));
            assertNull(f.digestOfAll());
        }
    }
}
