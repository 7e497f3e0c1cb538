package dev.walkit.format.pass;

import dev.walkit.format.RecordLayout;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Store;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * A store's replayed history kept between opens ({@link Pass#history(Path, java.util.function.LongConsumer, Cache)}): the
 * replay is a pure function of the file's bytes, so its keys, applied records and account are saved once, in the user's
 * cache (never beside the evidence), and mapped at the next open instead of replaying the file again.
 *
 * <p>Any store: a WAL's history is its own file's; an etcd db's or kine db's is of the WAL form made at its first open,
 * kept beside the index ({@code DEV-INO.wal}; kine's identity takes in its {@code -wal}).
 *
 * <p>An index names its file by identity: its real path, device, inode, size, modification and change times (the change time moves on
 * every write and cannot be set back by a user: a byte changed in the middle is noticed through it even when the
 * modification time is restored), and a CRC-32C of the file's first and last MiB. Its body carries a CRC-32C of its
 * own. An index whose identity differs (the file changed, was cut or grew), whose CRC fails or whose magic or version
 * is not this one's is not used: the caller is told why in one line and the file is replayed again. The layout, all
 * little-endian:
 * <pre>
 *   header (128 bytes): magic "WKINDEX1", version, format (0 v2, 1 v1), dev, ino, size, mtime ns, ctime ns,
 *                       CRC of the first MiB, of the last MiB, body length, CRC of the body up to the blob, of the blob,
 *                       the sections' positions
 *   meta               length first; the file's real path (writeUTF), the replay's facts, account and checkpoint
 *                      ({@link AccountCodec})
 *   applied            records, transactions (4 each), the offsets' and revisions' positions (8 each), then:
 *   offsets, revisions per chunk of 2^20 records: base (8), wide (4), count (4), data position (8); then the data:
 *                      ints of difference from the base, or longs where the chunk is wide
 *   links              per record: the previous record of its key + 1, DELETE in the top bit (4)
 *   transactions       per ordinary transaction: its first record's id (4)
 *   keys               key count (4, then 4 of padding); per key in byte order: blob position (8), key length (top bit:
 *                      live at the end), last record id, record count, value length at the end (4 each), lease, create
 *                      revision, version and value offset at the end (8 each): 56 bytes
 *   blob               the keys' bytes
 * </pre>
 */
public final class SavedIndex {
    static final byte[] MAGIC = "WKINDEX1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final int VERSION = 4;
    static final int HEADER = 128;
    private static final int ENDS = 1 << 20;
    static final int KEY_ENTRY = 56;

    /**
     * Where indexes are kept, who hears why one was not used or not saved (one line each), and how many bytes the
     * indexes (with the etcd and kine dbs' WAL forms beside them) may take before the least recently used go
     * ({@link #evict}).
     */
    public record Cache(Path dir, Consumer<String> say, long maxBytes) {
        /** The cache's bound when none is given: 8 GiB. */
        public static final long MAX_BYTES = 8L << 30;

        public Cache(Path dir, Consumer<String> say) {
            this(dir, say, MAX_BYTES);
        }
    }

    /** An index not used for this long is removed at the next save. */
    static final long UNUSED_DAYS = 30;

    private SavedIndex() {
    }

    /** A file as the index knows it: its identity when it was read. */
    record Identity(long dev, long ino, long size, long mtime, long ctime, int headCrc, int tailCrc, String path, long companion) {
        /** {@code file} now; for kine's state.db, its {@code -wal} beside it too ({@link #companion}). */
        static Identity of(Path file, Store.Kind kind) throws IOException {
            java.util.Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime");
            long size = (Long) a.get("size");
            int head;
            int tail;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                head = crc(ch, 0, (int) Math.min(ENDS, size));
                tail = crc(ch, Math.max(0, size - ENDS), (int) Math.min(ENDS, size));
            }
            return new Identity((Long) a.get("dev"), (Long) a.get("ino"), size, nanos((FileTime) a.get("lastModifiedTime")),
                    nanos((FileTime) a.get("ctime")), head, tail, file.toRealPath().toString(), kind == Store.Kind.KINE ? companion(file) : 0);
        }

        /**
         * SQLite's {@code -wal} beside kine's state.db as one number (its inode, size and times; 0 when there is none):
         * committed transactions live there until a checkpoint, so the db's history changes with it.
         */
        private static long companion(Path db) throws IOException {
            Path wal = db.resolveSibling(db.getFileName() + "-wal");
            if (!Files.exists(wal)) return 0;
            java.util.Map<String, Object> a = Files.readAttributes(wal, "unix:ino,size,lastModifiedTime,ctime");
            long h = (Long) a.get("ino");
            h = h * 31 + (Long) a.get("size");
            h = h * 31 + nanos((FileTime) a.get("lastModifiedTime"));
            h = h * 31 + nanos((FileTime) a.get("ctime"));
            return h == 0 ? 1 : h;
        }

        private static long nanos(FileTime t) {
            return t.to(java.util.concurrent.TimeUnit.NANOSECONDS);
        }

        private static int crc(FileChannel ch, long at, int n) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining()) {
                if (ch.read(b, at + b.position()) < 0) break;
            }
            b.flip();
            CRC32C c = new CRC32C();
            c.update(b);
            return (int) c.getValue();
        }

        /** Whether {@code file} (grown since) starts with the bytes this identity's CRCs were taken of. */
        boolean sameStart(Path file) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                return crc(ch, 0, (int) Math.min(ENDS, size)) == headCrc && crc(ch, Math.max(0, size - ENDS), (int) Math.min(ENDS, size)) == tailCrc;
            } catch (IOException e) {
                return false;
            }
        }

        /** What differs from {@code now}, in words, or null when nothing does. */
        String differs(Identity now) {
            if (dev != now.dev || ino != now.ino) return "it is of another file";
            if (now.size < size) return "the file was cut (" + size + " bytes when indexed, " + now.size + " now)";
            if (now.size > size) return "the file grew (" + size + " bytes when indexed, " + now.size + " now)";
            if (mtime != now.mtime || ctime != now.ctime) return "the file was written since (its times changed)";
            if (headCrc != now.headCrc || tailCrc != now.tailCrc) return "the file's first or last MiB changed";
            if (companion != now.companion) return "its -wal changed (SQLite's committed transactions beside it)";
            return null;
        }
    }

    /** The index file of {@code wal} in {@code dir}: named by the file's device and inode. */
    static Path fileOf(Path dir, Identity id) {
        return dir.resolve(Long.toHexString(id.dev) + "-" + Long.toHexString(id.ino) + ".idx");
    }

    /** The WAL form an etcd db's or kine db's index is of, kept beside it: the history's values are read from it. */
    static Path formOf(Path dir, Identity id) {
        return dir.resolve(Long.toHexString(id.dev) + "-" + Long.toHexString(id.ino) + ".wal");
    }

    /**
     * The history of the store {@code in} from its saved index in {@code cache} (a grown WAL gone on with from its saved
     * end), or null (said why to the cache's listener, unless there was none) when there is no usable one.
     */
    static StoreHistory open(Pass.Input in, Identity id, Cache cache) {
        Path wal = in.file();
        Path idx = fileOf(cache.dir(), id);
        if (!Files.exists(idx)) return null;
        try (FileChannel ch = FileChannel.open(idx, StandardOpenOption.READ)) {
            long length = ch.size();
            if (length < HEADER || length > Integer.MAX_VALUE) return refuse(cache, idx, "not an index of this version");
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, length);
            ByteBuffer b = m.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            byte[] magic = new byte[MAGIC.length];
            b.get(0, magic);
            if (!java.util.Arrays.equals(magic, MAGIC) || b.getInt(8) != VERSION) return refuse(cache, idx, "not an index of this version");
            int meta = (int) b.getLong(80);
            if (meta != HEADER || meta + 4 > length) return refuse(cache, idx, "damaged (its sections are out of place)");
            // The file indexed, by its real path: an inode the file system gave another file since (a log deleted, a new
            // one made) is not this file's index, nor stale news of it: replaced without a word.
            String savedPath = pathAt(b, meta + 4, (int) length);
            if (savedPath == null || !savedPath.equals(id.path)) return null;
            Identity saved = new Identity(b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40), b.getLong(48), b.getInt(56), b.getInt(60),
                    savedPath, b.getLong(112));
            String differs = saved.differs(id);
            // A file that grew is gone on with from its saved end when that end was healthy and the bytes before it are
            // the ones indexed (the CRC-32C of its first and of its then last MiB): only what it grew by is read.
            boolean grew = in.isWal() && differs != null && saved.dev == id.dev && saved.ino == id.ino && id.size > saved.size;
            if (differs != null && !(grew && saved.sameStart(wal))) return refuse(cache, idx, differs);
            long bodyLength = b.getLong(64);
            if (bodyLength != length - HEADER) return refuse(cache, idx, "damaged (its length is not what its header says)");
            int keys = (int) b.getLong(88);
            int blob = (int) b.getLong(96);
            int applied = (int) b.getLong(104);
            if (meta != HEADER || blob < HEADER || blob > length) return refuse(cache, idx, "damaged (its sections are out of place)");
            if (crc(b, HEADER, blob) != b.getInt(72) || crc(b, blob, (int) length) != b.getInt(76)) {
                return refuse(cache, idx, "damaged (its CRC-32C does not match)");
            }
            WalFormat format = b.getInt(12) == 1 ? WalFormat.V1 : WalFormat.V2;
            byte[] metaBytes = new byte[b.getInt(meta)];
            b.get(meta + 4, metaBytes);
            DataInputStream fields = new DataInputStream(new java.io.ByteArrayInputStream(metaBytes));
            fields.readUTF(); // the path, read above
            StoreHistory.Facts facts = AccountCodec.readFacts(fields);
            Account account = AccountCodec.read(fields);
            dev.walkit.format.replay.Replayer.Checkpoint checkpoint = AccountCodec.readCheckpoint(fields);
            StoreHistory.Source source = AccountCodec.readSource(fields);
            long formSize = fields.readLong();
            if (source.kind() != in.kind()) return refuse(cache, idx, "it is of another kind of store");
            if (grew && (checkpoint == null || format != WalFormat.V2)) {
                return refuse(cache, idx, differs + "; its indexed part did not end healthy");
            }
            int keyCount = b.getInt(keys);
            MappedHistory.Keys k = new MappedHistory.Keys(b, keys + 8, keyCount, blob);
            MappedHistory.Applied a = MappedHistory.Applied.at(b, applied);
            // An etcd db's or kine db's history is its WAL form's, kept beside the index.
            Path form = in.isWal() ? wal : formOf(cache.dir(), id);
            if (!in.isWal() && (!Files.isRegularFile(form) || Files.size(form) != formSize)) {
                return refuse(cache, idx, "the store's WAL form beside it is missing or not whole");
            }
            WalFile f = WalFile.open(form, RecordLayout.DEFAULT_MAX_REC_LEN);
            try {
                if (in.isWal() && f.size() != id.size) {
                    f.close();
                    return refuse(cache, idx, "the file changed while it was opened");
                }
                used(idx);
                if (grew) return StoreHistory.resumed(wal, f, new StoreHistory.Resume(k, a, checkpoint, account, saved.size));
                StoreHistory.Source named = in.isWal() ? new StoreHistory.Source(Store.Kind.WAL, wal, null, null, null)
                        : new StoreHistory.Source(source.kind(), wal, source.etcd(), source.kine(), source.store());
                return new StoreHistory(named, wal, f, format, k, a, facts, account);
            } catch (IOException | RuntimeException e) {
                f.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            return refuse(cache, idx, "unreadable (" + e.getMessage() + ")");
        }
    }

    /** Marks {@code idx} used now (its modification time: the least recently used go first, {@link #evict}). */
    private static void used(Path idx) {
        try {
            Files.setLastModifiedTime(idx, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // a cache that cannot be written: the index is used all the same
        }
    }

    /** The path written first in the meta section at {@code at} (writeUTF's form), or null when it does not fit. */
    private static String pathAt(ByteBuffer b, int at, int limit) {
        if (at + 2 > limit) return null;
        int n = (Byte.toUnsignedInt(b.get(at)) << 8) | Byte.toUnsignedInt(b.get(at + 1)); // writeUTF's length: big-endian
        if (at + 2 + n > limit) return null;
        byte[] utf = new byte[2 + n];
        b.get(at, utf);
        try {
            return new DataInputStream(new java.io.ByteArrayInputStream(utf)).readUTF();
        } catch (IOException e) {
            return null;
        }
    }

    private static int crc(ByteBuffer b, int from, int to) {
        CRC32C c = new CRC32C();
        c.update(b.slice(from, to - from));
        return (int) c.getValue();
    }

    private static StoreHistory refuse(Cache cache, Path idx, String why) {
        cache.say().accept("saved index " + idx + " not used: " + why + "; reading the file whole");
        return null;
    }

    /**
     * Saves {@code h}'s history (a store replayed whole, or a WAL from a saved end; {@code id} taken before its read) into
     * {@code cache}: written to a private name and renamed into place, so a reader sees a whole index or none. No fsync: an index lost
     * or torn by a crash is only rebuilt (its CRC says so).
     */
    static void save(StoreHistory h, Identity id, Cache cache) {
        Path dir = cache.dir();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            removeAbandoned(dir);
            tmp = Files.createTempFile(dir, TMP_PREFIX, ".tmp");
            failpoint();
            if (!h.source().isWal()) keepForm(h.file().path(), formOf(dir, id));
            write(h, id, tmp);
            Path target = fileOf(dir, id);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
            evict(cache, target);
        } catch (IOException | RuntimeException e) {
            cache.say().accept("index not saved in " + dir + ": " + describe(e));
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a private temporary name in the cache: left for the next save to replace
                }
            }
        }
    }

    private static final String TMP_PREFIX = ".index-";

    /**
     * Keeps an etcd db's or kine db's private WAL form (deleted when its history closes) as {@code form}, beside the index
     * written after it: a hard link where the two are on one file system, else a copy; renamed into place whole.
     */
    private static void keepForm(Path privateForm, Path form) throws IOException {
        Path tmp = form.resolveSibling(TMP_PREFIX + form.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createLink(tmp, privateForm);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(privateForm, tmp, StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system
        }
        Files.move(tmp, form, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * A failpoint, as etcd's gofail ones: {@code -Dwalkit.failpoint.indexSaveDelayMs=N} holds each save N ms before it
     * writes, so that a test can stop a process while its index is being saved. Unset: nothing.
     */
    private static void failpoint() {
        long ms = Long.getLong("walkit.failpoint.indexSaveDelayMs", 0);
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Keeps the cache bounded, at each save (never removing {@code kept}, the index just saved): an index whose file is
     * gone (its real path names no file, or another inode: the log was deleted or replaced), or that was not used for
     * {@link #UNUSED_DAYS} days, is removed with the WAL form beside it; then, while the cache holds more than its
     * {@link Cache#maxBytes}, the least recently used (an index's modification time is set at each use) go first.
     * Another version's indexes are never used by this one: they go once unused for as long. Best effort: a file that
     * cannot be removed is left.
     */
    static void evict(Cache cache, Path kept) {
        Path dir = cache.dir();
        record Entry(Path idx, Path form, long used, long bytes) {
        }
        List<Entry> entries = new java.util.ArrayList<>();
        long now = System.currentTimeMillis();
        long unused = now - UNUSED_DAYS * 86_400_000L;
        long total = 0;
        try (java.nio.file.DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.idx")) {
            for (Path idx : s) {
                String name = idx.getFileName().toString();
                Path form = idx.resolveSibling(name.substring(0, name.length() - ".idx".length()) + ".wal");
                long used = Files.getLastModifiedTime(idx).toMillis();
                long bytes = Files.size(idx) + (Files.exists(form) ? Files.size(form) : 0);
                if (!idx.equals(kept) && (used < unused || orphaned(idx))) {
                    remove(idx, form);
                    continue;
                }
                entries.add(new Entry(idx, form, used, bytes));
                total += bytes;
            }
        } catch (IOException | RuntimeException e) {
            return; // the next save tries again
        }
        entries.sort(java.util.Comparator.comparingLong(Entry::used));
        for (Entry e : entries) {
            if (total <= cache.maxBytes()) break;
            if (e.idx().equals(kept)) continue;
            if (remove(e.idx(), e.form())) total -= e.bytes();
        }
    }

    /** Whether the file {@code idx} indexes is gone: its recorded real path names no file, or another device and inode. */
    private static boolean orphaned(Path idx) {
        try (FileChannel ch = FileChannel.open(idx, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(ch.size(), HEADER + 4 + 2 + 65535)).order(ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read the header and the path after it
            }
            byte[] magic = new byte[MAGIC.length];
            if (b.position() < HEADER + 6) return false;
            b.get(0, magic);
            if (!java.util.Arrays.equals(magic, MAGIC) || b.getInt(8) != VERSION) return false; // another version's: its age decides
            String path = pathAt(b, HEADER + 4, b.position());
            if (path == null) return false;
            java.util.Map<String, Object> a;
            try {
                a = Files.readAttributes(Path.of(path), "unix:dev,ino");
            } catch (java.nio.file.NoSuchFileException e) {
                return true;
            }
            return (Long) a.get("dev") != b.getLong(16) || (Long) a.get("ino") != b.getLong(24);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean remove(Path idx, Path form) {
        try {
            Files.deleteIfExists(idx);
            Files.deleteIfExists(form);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes the private files of saves that a killed process left (older than an hour: none still being written). */
    private static void removeAbandoned(Path dir) {
        long before = System.currentTimeMillis() - 3_600_000;
        try (java.nio.file.DirectoryStream<Path> s = Files.newDirectoryStream(dir, TMP_PREFIX + "*.tmp")) {
            for (Path p : s) {
                if (Files.getLastModifiedTime(p).toMillis() < before) Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // another process's cache, or a race with it: its own saves remove them
        }
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static void write(StoreHistory h, Identity id, Path tmp) throws IOException {
        HistoryKeys keys = h.keys();
        // The keys' sort (a second on 2 M keys) runs beside the write of the applied records, which need none.
        java.util.concurrent.CompletableFuture<Integer> sorted = java.util.concurrent.CompletableFuture.supplyAsync(keys::size);
        AppliedRecords applied = (AppliedRecords) h.applied();
        ByteArrayOutputStream metaBytes = new ByteArrayOutputStream();
        DataOutputStream meta = new DataOutputStream(metaBytes);
        meta.writeUTF(id.path);
        AccountCodec.writeFacts(meta, h.facts());
        AccountCodec.write(meta, h.replayedAccount());
        AccountCodec.writeCheckpoint(meta, h.checkpoint());
        AccountCodec.writeSource(meta, h.source());
        meta.writeLong(h.file().size());
        meta.flush();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            Out o = new Out(ch, HEADER);
            long metaAt = o.position();
            o.putInt(metaBytes.size());
            o.put(metaBytes.toByteArray());
            o.align();
            long appliedAt = o.position();
            o.putInt(applied.size());
            o.putInt(applied.transactionCount());
            long offsetsAt = o.position() + 16;
            long revisionsAt = offsetsAt + columnBytes(applied.offsets());
            long linksAt = revisionsAt + columnBytes(applied.revisions());
            o.putLong(offsetsAt);
            o.putLong(revisionsAt);
            writeColumn(o, applied.offsets());
            writeColumn(o, applied.revisions());
            if (o.position() != linksAt) throw new IllegalStateException("column sizes");
            applied.writeLinks(o::putInts);
            applied.writeTransactions(o::putInts);
            o.align();
            int n = sorted.join();
            long keysAt = o.position();
            long blobAt = keysAt + 8 + (long) KEY_ENTRY * n;
            o.putInt(n);
            o.putInt(0);
            // One walk over the keys writes their entries here and their bytes at the blob's place (its own CRC).
            long blobPos = 0;
            Out blob = new Out(ch, blobAt);
            for (int i = 0; i < n; i++) {
                HistoryKeys.Entry e = keys.get(i);
                byte[] key = e.key();
                boolean live = e.live();
                o.putLong(blobPos);
                o.putInt(key.length | (live ? MappedHistory.Keys.LIVE : 0));
                o.putInt(e.last());
                o.putInt(e.count());
                o.putInt(live ? e.valueLength() : 0);
                o.putLong(live ? e.lease() : 0);
                o.putLong(e.createRevision());
                o.putLong(e.version());
                o.putLong(live ? e.valueOffset() : 0);
                blob.put(key);
                blobPos += key.length;
            }
            o.finish();
            blob.finish();
            if (o.position() != blobAt) throw new IllegalStateException("key entries");
            long end = blob.position();
            ByteBuffer hdr = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
            hdr.put(MAGIC).putInt(VERSION).putInt(h.format() == WalFormat.V1 ? 1 : 0);
            hdr.putLong(id.dev).putLong(id.ino).putLong(id.size).putLong(id.mtime).putLong(id.ctime).putInt(id.headCrc).putInt(id.tailCrc);
            hdr.putLong(end - HEADER).putInt(o.crc()).putInt(blob.crc());
            hdr.putLong(metaAt).putLong(keysAt).putLong(blobAt).putLong(appliedAt).putLong(id.companion);
            hdr.flip();
            while (hdr.hasRemaining()) ch.write(hdr, hdr.position());
        }
    }

    /** The bytes a column takes: its chunk table (24 bytes a chunk) and its values. */
    private static long columnBytes(PackedLongs c) {
        long n = 4 + 4;
        for (int i = 0; i < c.chunks(); i++) n += 24 + (c.narrow(i) != null ? 4L : 8L) * c.chunkSize(i);
        return n;
    }

    private static void writeColumn(Out o, PackedLongs c) throws IOException {
        int chunks = c.chunks();
        o.putInt(chunks);
        o.putInt(0);
        long data = o.position() + 24L * chunks;
        for (int i = 0; i < chunks; i++) {
            o.putLong(c.base(i));
            o.putInt(c.narrow(i) != null ? 0 : 1);
            o.putInt(c.chunkSize(i));
            o.putLong(data);
            data += (c.narrow(i) != null ? 4L : 8L) * c.chunkSize(i);
        }
        for (int i = 0; i < chunks; i++) {
            if (c.narrow(i) != null) o.putInts(c.narrow(i), c.chunkSize(i));
            else o.putLongs(c.wide(i), c.chunkSize(i));
        }
    }

    /** The body's writer: a little-endian buffer flushed to the channel from {@code start} on, its CRC-32C kept. */
    private static final class Out {
        private final FileChannel ch;
        private final ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();
        private long flushed;

        Out(FileChannel ch, long start) {
            this.ch = ch;
            this.flushed = start;
        }

        long position() {
            return flushed + buf.position();
        }

        private void room(int n) throws IOException {
            if (buf.remaining() < n) flush();
        }

        void putInt(int v) throws IOException {
            room(4);
            buf.putInt(v);
        }

        void putLong(long v) throws IOException {
            room(8);
            buf.putLong(v);
        }

        void put(byte[] b) throws IOException {
            int at = 0;
            while (at < b.length) {
                if (!buf.hasRemaining()) flush();
                int n = Math.min(buf.remaining(), b.length - at);
                buf.put(b, at, n);
                at += n;
            }
        }

        void putInts(int[] a, int n) throws IOException {
            int at = 0;
            while (at < n) {
                room(4);
                int k = Math.min(buf.remaining() / 4, n - at);
                buf.asIntBuffer().put(a, at, k);
                buf.position(buf.position() + 4 * k);
                at += k;
            }
        }

        void putLongs(long[] a, int n) throws IOException {
            int at = 0;
            while (at < n) {
                room(8);
                int k = Math.min(buf.remaining() / 8, n - at);
                buf.asLongBuffer().put(a, at, k);
                buf.position(buf.position() + 8 * k);
                at += k;
            }
        }

        /** Pads to a multiple of 8. */
        void align() throws IOException {
            while (position() % 8 != 0) {
                room(1);
                buf.put((byte) 0);
            }
        }

        private void flush() throws IOException {
            buf.flip();
            crc.update(buf.duplicate());
            while (buf.hasRemaining()) flushed += ch.write(buf, flushed);
            buf.clear();
        }

        void finish() throws IOException {
            flush();
        }

        int crc() {
            return (int) crc.getValue();
        }
    }
}
