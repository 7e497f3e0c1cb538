package dev.walkit.recover;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One walrecover at a time per output directory: two runs into one DIR (a second terminal, a runbook's
 * retry while the first still runs) would both pass the "DIR/wal exists" check, and the later rename would
 * replace the earlier output unasked. An OS lock on {@code DIR/.walrecover.lock}, released when the run ends
 * or its process dies. The file stays (a few bytes: the last holder's pid): removing it would let a run
 * that opened it just before hold a lock no later run sees.
 */
final class OutputLock implements AutoCloseable {
    static final String FILE = ".walrecover.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private OutputLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock of {@code dir}; null when another process holds it, with {@code holder[0]} set to its pid as it wrote it. */
    static OutputLock tryAcquire(Path dir, String[] holder) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            FileLock l = ch.tryLock();
            if (l == null) {
                ByteBuffer b = ByteBuffer.allocate(32);
                ch.read(b, 0);
                holder[0] = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
                ch.close();
                return null;
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII)), 0);
            return new OutputLock(ch, l);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
