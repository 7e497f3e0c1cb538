package dev.walkit.format.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * One writer at a time per output directory: two runs into one DIR (a second terminal, a runbook's retry
 * while the first still runs) would both pass the "DIR/wal exists" check, and the later rename would replace
 * the earlier output unasked. An OS lock on {@code DIR/.walkit.lock}, released when the run ends or its process
 * dies.
 *
 * <p>The file is removed when the lock is released, so that no lock file ends up in a store after a runbook's
 * {@code mv}. Removing a lock file is safe only with a check on taking it: a run that opened the file just before
 * its holder removed it gets a lock on a file no longer in DIR. So the taker stats the path before opening it and
 * again once it holds the lock, and tries again unless both name the same file (device and inode). (It may not
 * read the file through a second descriptor: closing any descriptor of a file drops the process's POSIX locks
 * on it.) A process killed with the lock leaves the file; the next run takes it over (the OS released the
 * lock) and removes it when done.
 */
final class DirLock implements AutoCloseable {
    static final String FILE = ".walkit.lock";

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;

    private DirLock(Path path, FileChannel channel, FileLock lock) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock of {@code dir}; null when another process holds it, with {@code holder[0]} set to what it wrote (its pid). */
    static DirLock tryAcquire(Path dir, String[] holder) throws IOException {
        Path path = dir.resolve(FILE);
        byte[] pid = Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII);
        for (int attempt = 0; attempt < 100; attempt++) {
            Object before = keyOrNull(path);
            FileChannel ch;
            try {
                ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } catch (java.nio.file.FileSystemException e) {
                // The directory is what cannot be written (read-only, no permission, full): named as such, not its lock file.
                String why = e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
                throw new java.nio.file.FileSystemException(dir.toString(), null, "cannot write in this directory: " + why);
            }
            try {
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (java.nio.channels.OverlappingFileLockException e) {
                    l = null; // this very process holds it (a second open in one JVM)
                }
                if (l == null) {
                    ByteBuffer b = ByteBuffer.allocate(32);
                    ch.read(b, 0);
                    holder[0] = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
                    ch.close();
                    return null;
                }
                if (before != null && before.equals(keyOrNull(path))) {
                    ch.truncate(0);
                    ch.write(ByteBuffer.wrap(pid), 0);
                    return new DirLock(path, ch, l);
                }
                // Created just now, or replaced since: the lock may be on a file no longer at the path; again.
                ch.close();
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }
        throw new IOException(path + ": could not take the lock: the file kept being replaced");
    }

    /** The device and inode the path names now (stat, no descriptor opened), or null when there is no such file. */
    private static Object keyOrNull(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** For tests: what a process's death does, the OS lock released and nothing removed. */
    void drop() throws IOException {
        channel.close();
    }

    /** Removes the lock file (while still holding the lock), then releases it. */
    @Override
    public void close() throws IOException {
        try {
            Files.deleteIfExists(path);
        } finally {
            try {
                lock.release();
            } finally {
                channel.close();
            }
        }
    }
}
