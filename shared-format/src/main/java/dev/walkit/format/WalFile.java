package dev.walkit.format;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.zip.CRC32C;

/**
 * A WAL file opened read-only, read through a window: a direct buffer filled by positional
 * reads, so that a sequential scan of a file of any size (well past 2 GiB) costs one copy from the
 * page cache and no page faults (a memory mapping faults on every page of a multi-GB file, which
 * costs more than the copy). Records are views into the window ({@link RecordView}); the window
 * moves forward as the reader asks for bytes beyond it, so a view is valid until the next read.
 *
 * <p>Random access that must not move the window — values read back by offset, CRCs of ranges far
 * ahead during resync — goes through {@link #read}, {@link #intAt} and {@link #updateCrc}, which use
 * the window when the bytes are in it and a separate buffer otherwise.
 *
 * <p>All buffers handed out are little-endian and must be treated as read-only.
 */
public final class WalFile implements Closeable {
    /**
     * 1 MiB: small enough that the buffer stays in the CPU's cache between the copy into it and the CRC
     * and decode that read it (a 16 MiB window went out to memory twice: frame level on a 2 GiB log took
     * 0.90 s instead of 0.67 s); large enough that a system call per window costs nothing.
     */
    static final int DEFAULT_WINDOW = 1 << 20;
    private static final int AUX = 1 << 20;

    private final Path path;
    private final FileChannel channel;
    /** The file's size when opened; for a file followed as it is written, what {@link #extendTo} last said. */
    private long size;
    private final boolean following;
    private final int maxFrame;
    private ByteBuffer window;
    private long windowStart;
    private long windowEnd;
    private ByteBuffer aux;

    private WalFile(Path path, FileChannel channel, long size, boolean following, int windowSize, int maxFrame) {
        this.path = path;
        this.channel = channel;
        this.size = size;
        this.following = following;
        this.maxFrame = maxFrame;
        int capacity = following ? windowSize : (int) Math.max(64, Math.min(windowSize, size));
        this.window = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Opens {@code path} read-only. I/O errors name the file and what failed. */
    public static WalFile open(Path path, int maxRecLen) throws IOException {
        return open(path, maxRecLen, DEFAULT_WINDOW);
    }

    static WalFile open(Path path, int maxRecLen, int windowSize) throws IOException {
        return open(path, maxRecLen, windowSize, false);
    }

    /**
     * Opens {@code path} read-only to follow it while another handle writes it: its size is 0 until
     * {@link #extendTo} says how far the writer has written (a record boundary each time), so that a reader
     * reaches the end of what is there, and goes on from it after the next {@code extendTo}.
     */
    public static WalFile follow(Path path, int maxRecLen) throws IOException {
        return open(path, maxRecLen, DEFAULT_WINDOW, true);
    }

    private static WalFile open(Path path, int maxRecLen, int windowSize, boolean following) throws IOException {
        if (Files.isDirectory(path)) {
            throw new IOException(path + ": is a directory, not a WAL file");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            // Opening a FIFO would wait for a writer; a device is not a log.
            throw new IOException(path + ": not a regular file (a FIFO, socket or device): give the WAL file itself, or a data directory");
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
            long maxFrame = RecordLayout.recordLength(maxRecLen) + (128 << 10);
            return new WalFile(path, ch, following ? 0 : ch.size(), following, windowSize, (int) Math.min(Integer.MAX_VALUE - 64, maxFrame));
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

    /** The size of the file this opened, now (a file followed: what the writer has written; the path may name another file by now). */
    public long currentSize() throws IOException {
        return channel.size();
    }

    /** Reads into {@code dst} from {@code position} of the file this opened, past the size a follow has reached. */
    public int readAt(ByteBuffer dst, long position) throws IOException {
        return channel.read(dst, position);
    }

    /**
     * For a file opened with {@link #follow}: the writer has written it up to {@code newSize} bytes, a
     * record boundary; reads see up to there. The size never shrinks.
     */
    public void extendTo(long newSize) {
        if (!following) throw new IllegalStateException(path + ": not opened to follow a writer");
        if (newSize < size) throw new IllegalArgumentException("size " + newSize + " is below " + size);
        size = newSize;
    }

    /**
     * The window, holding at least {@code need} bytes from {@code offset} (or up to the end of the
     * file); moves the window when it does not. Use {@link #indexIn} for the offset's index in it.
     * {@code need} is at most the largest frame this file was opened for.
     */
    public ByteBuffer bufferAt(long offset, int need) {
        long want = Math.min(size, offset + need);
        if (offset < windowStart || want > windowEnd) fill(offset, Math.min(need, maxFrame));
        return window;
    }

    int windowCapacity() {
        return window.capacity();
    }

    /** Whether {@code length} bytes fit the window as it is (no allocation needed to view them). */
    public boolean fitsWindow(int length) {
        return length <= window.capacity();
    }

    /** {@link #bufferAt(long, int)} for a header's worth of bytes. */
    public ByteBuffer bufferAt(long offset) {
        return bufferAt(offset, 64);
    }

    /** Index of {@code offset} inside the window (valid after {@link #bufferAt}). */
    public int indexIn(long offset) {
        return (int) (offset - windowStart);
    }

    /** See {@link #digestAsRead}: null when none, or when a read skipped bytes. */
    private MessageDigest digest;
    /** The bytes [0, digestedTo) went into {@link #digest}. */
    private long digestedTo;

    /**
     * Adds every byte the window reads to {@code digest}, once each and in file order from offset 0, so that a
     * reader's one pass over the file also hashes it (walrecover's read-back of its output gives the output's
     * SHA-256: the file is read once, not twice). Bytes read without moving the window ({@link #read},
     * {@link #readFully}, {@link #intAt}, {@link #updateCrc}) are not added; a window that starts past the bytes
     * added (a reader that skipped some) stops it, and {@link #digestOfAll} then gives null.
     */
    public void digestAsRead(MessageDigest digest) {
        this.digest = digest;
        this.digestedTo = 0;
    }

    /** The digest given to {@link #digestAsRead}, when every byte up to the file's size went into it in order; else null. */
    public MessageDigest digestOfAll() {
        return digest != null && digestedTo == size ? digest : null;
    }

    /** Adds the window's bytes not yet added ({@link #digestAsRead}). */
    private void digestWindow() {
        if (windowStart > digestedTo) {
            digest = null;
        } else if (windowEnd > digestedTo) {
            digest.update(window.duplicate().position((int) (digestedTo - windowStart)).limit((int) (windowEnd - windowStart)));
            digestedTo = windowEnd;
        }
    }

    /** Told the bytes of each window read from the file (a progress bar's count), or null. */
    private volatile java.util.function.LongConsumer onFill;

    /** Tells {@code c} the bytes of each window read from now on (another WalFile of the same scan may share it). */
    public void onFill(java.util.function.LongConsumer c) {
        onFill = c;
    }

    public java.util.function.LongConsumer onFill() {
        return onFill;
    }

    private void fill(long offset, int need) {
        if (need > window.capacity()) {
            window = ByteBuffer.allocateDirect(need).order(ByteOrder.LITTLE_ENDIAN);
        }
        // Never past the size: a followed file's bytes beyond it may be half-written.
        ByteBuffer b = window.clear().limit((int) Math.max(0, Math.min(window.capacity(), size - offset)));
        long pos = offset;
        try {
            while (b.hasRemaining() && pos < size) {
                int n = channel.read(b, pos);
                if (n < 0) break;
                pos += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(path + ": read failed at offset " + offset + ": " + e.getMessage(), e));
        }
        b.flip();
        windowStart = offset;
        windowEnd = pos;
        java.util.function.LongConsumer c = onFill;
        if (c != null) c.accept(pos - offset);
        if (digest != null) digestWindow();
    }

    /** The little-endian u32 at {@code offset}, without moving the window. */
    public int intAt(long offset) {
        if (offset >= windowStart && offset + 4 <= windowEnd) return window.getInt((int) (offset - windowStart));
        return ByteBuffer.wrap(read(offset, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /** Copies {@code length} bytes from {@code offset} (values read back by offset), without moving the window. */
    public byte[] read(long offset, int length) {
        if (offset >= windowStart && offset + length <= windowEnd) return Bytes.copy(window, (int) (offset - windowStart), length);
        byte[] out = new byte[length];
        readFully(ByteBuffer.wrap(out), offset);
        return out;
    }

    /** Fills {@code b} (from its position to its limit) with the file's bytes from {@code offset}, without moving the window. */
    public void readFully(ByteBuffer b, long offset) {
        int start = b.position();
        try {
            while (b.hasRemaining()) {
                int n = channel.read(b, offset + b.position() - start);
                if (n < 0) throw new IOException("unexpected end of file");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(path + ": read of " + (b.limit() - start) + " bytes at offset " + offset + " failed: "
                    + e.getMessage(), e));
        }
        java.util.function.LongConsumer c = onFill;
        if (c != null) c.accept(b.position() - start);
    }

    /**
     * Copies bytes [offset, offset+length) of the file to {@code target} inside the kernel (no copy
     * through this process), without moving the window.
     */
    public void transferTo(long offset, long length, java.nio.channels.WritableByteChannel target) throws IOException {
        long done = 0;
        try {
            while (done < length) {
                long n = channel.transferTo(offset + done, length - done, target);
                if (n <= 0) throw new IOException("unexpected end of file");
                done += n;
            }
        } catch (IOException e) {
            throw new IOException(path + ": copy of " + length + " bytes at offset " + offset + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Bytes [offset, offset + length) of the file ({@code length} at most 1 MiB), little-endian, at
     * position 0 of a buffer that stays valid until the next call of this or {@link #updateCrc};
     * without moving the window: for resync's reads far ahead of the scan, one system call each.
     */
    public ByteBuffer peek(long offset, int length) {
        if (length > AUX) throw new IllegalArgumentException("peek of " + length + " bytes");
        if (offset >= windowStart && offset + length <= windowEnd) {
            return window.slice((int) (offset - windowStart), length).order(ByteOrder.LITTLE_ENDIAN);
        }
        if (aux == null) aux = ByteBuffer.allocateDirect(AUX).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer b = aux.clear().limit(length);
        readFully(b, offset);
        return b.flip();
    }

    /** Updates {@code crc} with bytes [from, to) of the file, without moving the window. */
    public void updateCrc(CRC32C crc, long from, long to) {
        if (from >= windowStart && to <= windowEnd) {
            ByteBuffer d = window.duplicate();
            d.limit((int) (to - windowStart)).position((int) (from - windowStart));
            crc.update(d);
            return;
        }
        for (long pos = from; pos < to; ) {
            int n = (int) Math.min(AUX, to - pos);
            crc.update(peek(pos, n));
            pos += n;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
