package dev.walkit.format.replay;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.Flags;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.group.TransactionGrouper;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A live v2 WAL replayed as it grows, by the one replay: each {@link #poll} reads the records appended since the last
 * (up to the last whole record: the writer appends and fsyncs a record at a time), groups and applies them as the
 * whole log's replay does, and tells the listener. A record cut short at the end is a write in progress: it waits,
 * and is read as what it is (a torn tail) only once it has stayed so for {@code tornAfterNanos}. A file replaced
 * (compaction's rename: another inode) or cut shorter is opened again, and its records up to the revision already
 * replayed (the new file's snapshot prefix, what was read before) are passed over.
 */
public final class WalFollower implements Closeable {
    /** What the follower saw of the file itself (besides records, damage and findings, which go to the listener). */
    @FunctionalInterface
    public interface Events {
        /** The file at {@code path} is another file now, or shorter: read again from its start, past {@code revision}. */
        void replaced(Path path, String why, long revision);
    }

    private final Path path;
    private final ReaderOptions ro;
    private final Replayer.Listener listener;
    private final Events events;
    private final Replayer replayer;
    private final TransactionGrouper grouper;
    private final long tornAfterNanos;
    private WalFile file;
    private WalReader reader;
    private Object fileKey;
    /** Where the last whole record read ends. */
    private long boundary;
    /** Records up to this revision are passed over (a file read again); -1: none. */
    private long skipThrough = -1;
    private long lastRevision = -1;
    /** When the bytes past {@link #boundary} were first seen unchanged (a record in progress), and how many; -1: none. */
    private long partialSince = -1;
    private long partialSize = -1;
    private long records;

    public WalFollower(Path path, ReaderOptions ro, Replayer.Listener listener, Events events, long tornAfterNanos) throws IOException {
        this.path = path;
        this.ro = ro;
        this.listener = listener;
        this.events = events == null ? (p, why, revision) -> { } : events;
        this.tornAfterNanos = tornAfterNanos;
        this.replayer = new Replayer(Replayer.Options.defaults(), this::readValue, listener, new KeyIndex());
        this.grouper = new TransactionGrouper(replayer);
        requireV2(path, ro);
        openFile();
    }

    /**
     * A file that already holds records must be a v2 log, as every tool asks of a WAL (an etcd db, a kine db or any
     * other file is not one: "not a WAL", not damage). One still shorter than a record may be a log being created.
     */
    private static void requireV2(Path path, ReaderOptions ro) throws IOException {
        if (!Files.isRegularFile(path) || Files.size(path) < SNIFF_FROM) return;
        try (WalFile probe = WalFile.open(path, ro.maxRecLen())) {
            if (dev.walkit.format.Wal.requireWal(probe, ro.maxRecLen()).format() != dev.walkit.format.WalFormat.V2) {
                throw new dev.walkit.format.NotAWalException(path + ": a v1 log: following reads v2 logs");
            }
        }
    }

    /** Bytes below which a file is not yet judged (a first record being written). */
    private static final int SNIFF_FROM = 64;

    private byte[] readValue(long offset, int length) {
        return file.read(offset, length);
    }

    private void openFile() throws IOException {
        if (file != null) file.close();
        file = WalFile.follow(path, ro.maxRecLen());
        reader = new WalReader(file, ro);
        fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        boundary = 0;
        partialSince = -1;
    }

    /** Reads what was appended since the last poll; the bytes read (0: nothing new). {@code now}: System.nanoTime(). */
    public long poll(long now) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (java.nio.file.NoSuchFileException e) {
            return 0; // between a compaction's unlink and rename: the next poll sees the new file
        }
        if (!java.util.Objects.equals(a.fileKey(), fileKey) || a.size() < boundary) {
            boolean replaced = !java.util.Objects.equals(a.fileKey(), fileKey);
            String why = replaced ? "replaced by another file (a compaction's rename)"
                    : "cut to " + a.size() + " bytes, shorter than the " + boundary + " already read";
            if (replaced) {
                // What the writer appended to the old file before the rename is read first (the open handle still reads it):
                // the new file then holds nothing this follow has not seen, beyond its snapshot prefix.
                long end = wholeRecords(file.currentSize());
                if (end > boundary) {
                    file.extendTo(end);
                    readOn();
                    boundary = end;
                }
            }
            skipThrough = lastRevision;
            openFile();
            events.replaced(path, why, lastRevision);
        }
        long size = a.size();
        long whole = wholeRecords(size);
        long from = boundary;
        if (whole < size) {
            if (partialSince < 0 || partialSize != size) {
                partialSince = now;
                partialSize = size;
            } else if (now - partialSince >= tornAfterNanos) {
                whole = size; // it stayed cut short: read as what it is
            }
        } else {
            partialSince = -1;
        }
        if (whole > boundary) {
            file.extendTo(whole);
            readOn();
            boundary = whole;
        }
        return boundary - from;
    }

    /** Where the whole records from {@link #boundary} up to {@code size} end, by their headers; {@code size} past an implausible one. */
    private long wholeRecords(long size) throws IOException {
        long at = boundary;
        ByteBuffer h = ByteBuffer.allocate(RecordLayout.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        while (at + RecordLayout.HEADER_LENGTH <= size) {
            h.clear();
            while (h.hasRemaining() && file.readAt(h, at + h.position()) > 0) {
                // read on
            }
            if (h.hasRemaining()) break;
            int recLen = h.getInt(RecordLayout.REC_LEN_OFFSET);
            if ((h.get(0) & Flags.RESERVED_MASK) != 0 || recLen < 0 || recLen > ro.maxRecLen()) return size; // not a header: the reader says what
            long end = at + RecordLayout.OVERHEAD + (long) recLen;
            if (end > size) break;
            at = end;
        }
        return at;
    }

    private void readOn() {
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (x instanceof RecordView v) {
                WalEntry e = WalEntry.of(v);
                if (e.revision() <= skipThrough) continue; // read before, or the new file's snapshot prefix
                records++;
                listener.read(e.offset(), e.revision());
                if (e.revision() > lastRevision) lastRevision = e.revision();
                grouper.accept(e);
            } else {
                grouper.accept((DamageSpan) x);
            }
        }
    }

    /** The end of following: what is past the last whole record is read as what it is, and the replay ends. */
    public Replayer end() throws IOException {
        long size = Files.size(path);
        if (Files.readAttributes(path, BasicFileAttributes.class).fileKey().equals(fileKey) && size > boundary) {
            file.extendTo(size);
            readOn();
            boundary = size;
        }
        grouper.end();
        replayer.end(boundary);
        return replayer;
    }

    public WalFile file() {
        return file;
    }

    /** Records read (those passed over after a replacement aside). */
    public long records() {
        return records;
    }

    /** Bytes read of the file followed now. */
    public long bytes() {
        return boundary;
    }

    public Replayer replayer() {
        return replayer;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
