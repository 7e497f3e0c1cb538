package dev.walkit.format;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The canonical writer: appends records in canonical form ({@link RecordEncoder}) through a buffer,
 * and forces them to disk on {@link #sync()} and {@link #close()}. Writes a new file only
 * ({@code CREATE_NEW}): it never overwrites.
 */
public final class WalWriter implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private final RecordEncoder encoder = new RecordEncoder();
    private ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    private long written;
    private java.util.function.LongConsumer onFlush;

    private WalWriter(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    public static WalWriter create(Path path) throws IOException {
        try {
            return new WalWriter(path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new IOException(path + ": cannot create: " + e, e);
        }
    }

    /**
     * Told the file's size after each write to it: for a reader that follows the file as it grows
     * ({@link WalFile#follow}). Each size is a record boundary: the buffer is written whole, and holds
     * whole records only (a record that does not fit is appended after the flush), as long as the caller
     * appends whole records through {@link #appendRaw} and {@link #appendFrom}.
     */
    public void onFlush(java.util.function.LongConsumer sizeWritten) {
        this.onFlush = sizeWritten;
    }

    /** Appends one record; returns its file offset. */
    public long append(KeyValue kv) throws IOException {
        int len = RecordEncoder.recordLength(kv);
        if (buf.remaining() < len) {
            flush();
            if (buf.capacity() < len) buf = ByteBuffer.allocateDirect(len).order(ByteOrder.LITTLE_ENDIAN);
        }
        long at = written + buf.position();
        encoder.encode(kv, buf, buf.position());
        buf.position(buf.position() + len);
        return at;
    }

    /** Appends bytes as they are (a record copied byte-exact from another log); returns its file offset. */
    public long appendRaw(byte[] record) throws IOException {
        if (buf.remaining() < record.length) {
            flush();
            if (buf.capacity() < record.length) buf = ByteBuffer.allocateDirect(record.length).order(ByteOrder.LITTLE_ENDIAN);
        }
        long at = written + buf.position();
        buf.put(record);
        return at;
    }

    /** Appends {@code length} bytes of {@code src} at {@code index} as they are; returns their file offset. */
    public long appendRaw(ByteBuffer src, int index, int length) throws IOException {
        if (buf.remaining() < length) {
            flush();
            if (buf.capacity() < length) buf = ByteBuffer.allocateDirect(length).order(ByteOrder.LITTLE_ENDIAN);
        }
        long at = written + buf.position();
        buf.put(buf.position(), src, index, length);
        buf.position(buf.position() + length);
        return at;
    }

    /**
     * Appends bytes [offset, offset+length) of {@code src} as they are, copied inside the kernel (a run
     * of records copied byte-exact); returns their file offset.
     */
    public long appendFrom(WalFile src, long offset, long length) throws IOException {
        flush();
        long at = written;
        try {
            src.transferTo(offset, length, channel);
        } catch (IOException e) {
            // Name the file being written: a full disk is this one's, not the input's.
            Throwable os = e.getCause() != null ? e.getCause() : e;
            throw new IOException(path + ": write failed (" + length + " bytes copied from " + src.path() + "): " + os.getMessage(), e);
        }
        written += length;
        if (onFlush != null) onFlush.accept(written);
        return at;
    }

    /** Bytes handed to the writer so far. */
    public long size() {
        return written + buf.position();
    }

    public void flush() throws IOException {
        buf.flip();
        try {
            while (buf.hasRemaining()) written += channel.write(buf);
        } catch (IOException e) {
            throw new IOException(path + ": write failed: " + e, e);
        }
        buf.clear();
        if (onFlush != null) onFlush.accept(written);
    }

    /** Flushes and fsyncs. */
    public void sync() throws IOException {
        flush();
        try {
            channel.force(true);
        } catch (IOException e) {
            throw new IOException(path + ": fsync failed: " + e, e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            sync();
        } finally {
            channel.close();
        }
    }

    /**
     * Flushes and closes without fsync: for a caller that fsyncs the file itself, off the critical path
     * (walrecover fsyncs on another thread while it verifies, and publishes only after both).
     */
    public void closeWithoutFsync() throws IOException {
        try {
            flush();
        } finally {
            channel.close();
        }
    }
}
