package dev.walkit.format;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * A WAL file opened read-only and mapped in chunks, so that files well past 2 GiB are read
 * without copies. Chunk {@code i} maps {@code [i*chunkSize, (i+1)*chunkSize + overlap)}: any range
 * of at most {@code overlap} bytes that starts in chunk {@code i} lies inside it, so a record (at
 * most {@code maxRecLen + 13} bytes) is always one contiguous view.
 *
 * <p>All buffers handed out are little-endian and must be treated as read-only.
 */
public final class WalFile implements Closeable {
    static final long DEFAULT_CHUNK = 1L << 30;

    private final Path path;
    private final FileChannel channel;
    private final long size;
    private final long chunkSize;
    private final long overlap;
    private final ByteBuffer[] chunks;

    private WalFile(Path path, FileChannel channel, long size, long chunkSize, long overlap) {
        this.path = path;
        this.channel = channel;
        this.size = size;
        this.chunkSize = chunkSize;
        this.overlap = overlap;
        this.chunks = new ByteBuffer[(int) Math.max(1, (size + chunkSize - 1) / chunkSize)];
    }

    /** Opens {@code path} read-only. I/O errors name the file and what failed. */
    public static WalFile open(Path path, int maxRecLen) throws IOException {
        return open(path, maxRecLen, DEFAULT_CHUNK);
    }

    static WalFile open(Path path, int maxRecLen, long chunkSize) throws IOException {
        if (Files.isDirectory(path)) {
            throw new IOException(path + ": is a directory, not a WAL file");
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new IOException(path + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new IOException(path + ": permission denied", e);
        } catch (IOException e) {
            throw new IOException(path + ": cannot open: " + e.getMessage(), e);
        }
        try {
            // v1 frames add a key of up to 64 KiB to the value: leave room for either format.
            long overlap = RecordLayout.recordLength(maxRecLen) + (128 << 10);
            return new WalFile(path, ch, ch.size(), chunkSize, overlap);
        } catch (IOException e) {
            ch.close();
            throw new IOException(path + ": cannot read its size: " + e.getMessage(), e);
        }
    }

    public Path path() {
        return path;
    }

    public long size() {
        return size;
    }

    /** The chunk buffer holding {@code offset}; use {@link #indexIn} for the index of the offset in it. */
    public ByteBuffer bufferAt(long offset) {
        int i = (int) (offset / chunkSize);
        ByteBuffer b = chunks[i];
        if (b == null) {
            long start = i * chunkSize;
            long len = Math.min(size - start, chunkSize + overlap);
            try {
                MappedByteBuffer m = channel.map(FileChannel.MapMode.READ_ONLY, start, len);
                b = m.order(ByteOrder.LITTLE_ENDIAN);
            } catch (IOException e) {
                throw new UncheckedIOException(new IOException(path + ": cannot map bytes " + start + ".." + (start + len) + ": " + e.getMessage(), e));
            }
            chunks[i] = b;
        }
        return b;
    }

    /** Index of {@code offset} inside {@link #bufferAt(long)}. */
    public int indexIn(long offset) {
        return (int) (offset % chunkSize);
    }

    /** Bytes available contiguously from {@code offset} in its chunk. */
    public long contiguousFrom(long offset) {
        return Math.min(size, (offset / chunkSize) * chunkSize + chunkSize + overlap) - offset;
    }

    /** One byte, for tools (hexdump). */
    public byte byteAt(long offset) {
        return bufferAt(offset).get(indexIn(offset));
    }

    /** Copies {@code length} bytes from {@code offset} (for values read back by offset, hexdumps). */
    public byte[] read(long offset, int length) {
        byte[] out = new byte[length];
        int done = 0;
        while (done < length) {
            long off = offset + done;
            ByteBuffer b = bufferAt(off);
            int idx = indexIn(off);
            int n = (int) Math.min(length - done, Math.min(contiguousFrom(off), b.limit() - idx));
            b.get(idx, out, done, n);
            done += n;
        }
        return out;
    }

    /** Updates {@code crc} with bytes [from, to) of the file, across chunks. */
    public void updateCrc(CRC32C crc, long from, long to) {
        long pos = from;
        while (pos < to) {
            ByteBuffer b = bufferAt(pos).duplicate();
            int idx = indexIn(pos);
            long avail = Math.min(chunkSize - idx, to - pos);
            b.limit(idx + (int) avail).position(idx);
            crc.update(b);
            pos += avail;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
