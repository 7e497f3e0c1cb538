package dev.walkit.format.etcd;

import dev.walkit.format.Crc32cMath;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * etcd's own write-ahead log ({@code member/wal/SEQ-INDEX.wal}), read as etcd reads it at start (its wal package):
 * each record an 8-byte little-endian length field (the data's length in the low 56 bits; when the top bit is set,
 * the padding to 8 bytes in the top byte's low 3 bits), then a walpb.Record (type 1, crc 2, data 3) and its padding.
 * The crc is CRC-32C over every record's data from the log's start, chained across files; a crcType record (4)
 * carries the chain into a new file. Types: metadata 1, entry 2 (a raftpb.Entry: type 1, term 2, index 3, data 4),
 * state 3 (a raftpb.HardState: term 1, vote 2, commit 3), crc 4, snapshot 5 (a walpb.Snapshot: index 1, term 2).
 * A zero length field is the end of what was written (the files are preallocated with zeros). In the last file, a
 * record cut short by the file's end, or one that fails (its decode or crc) with a sector-sized piece of it all zeros,
 * is a torn tail (a crash mid-write: etcd repairs it at its next start, and it held nothing acknowledged); any other
 * failure is damage, which stops etcd ("walpb: crc mismatch").
 */
public final class EtcdWal {
    static final int METADATA = 1;
    static final int ENTRY = 2;
    static final int STATE = 3;
    static final int CRC = 4;
    static final int SNAPSHOT = 5;

    /** A raft log entry: its index, term, type (0 normal, 1 a membership change) and data. */
    public record Entry(long index, long term, int type, byte[] data) {
    }

    /**
     * What the log holds: its entries after {@code from} in index order (a later entry of an index replaces the one
     * before it and those after, as raft's log does), the last HardState's commit index, a torn tail (or null), the
     * damage (what stops etcd), and the files read.
     */
    public record Read(List<Entry> entries, long lastIndex, long commit, String tornTail, List<String> damage, int files) {
        public Read {
            entries = List.copyOf(entries);
            damage = List.copyOf(damage);
        }
    }

    private EtcdWal() {
    }

    /** The {@code member/wal} beside {@code db} when {@code db} is a data directory's {@code member/snap/db}; else null. */
    public static Path walDirOf(Path db) {
        Path snap = db.toAbsolutePath().getParent();
        if (snap == null || !"db".equals(db.getFileName().toString()) || !"snap".equals(snap.getFileName().toString())) return null;
        Path wal = snap.getParent().resolve("wal");
        return Files.isDirectory(wal) ? wal : null;
    }

    /** The entries of the log in {@code dir} after index {@code from}. */
    public static Read read(Path dir, long from) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches("[0-9a-f]{16}-[0-9a-f]{16}\\.wal")).sorted().toList();
        }
        // As etcd opens its log at start: from the last file whose first index (its name's second half) is at or
        // below the first entry wanted; the files before hold only entries the db has. Each begins with a crc record
        // that seeds the chain.
        int start = 0;
        for (int i = 0; i < files.size(); i++) {
            String n = files.get(i).getFileName().toString();
            if (Long.parseUnsignedLong(n.substring(17, 33), 16) <= from + 1) start = i;
        }
        files = files.subList(start, files.size());
        List<Entry> entries = new ArrayList<>();
        List<String> damage = new ArrayList<>();
        long commit = 0;
        long last = 0;
        String torn = null;
        int crc = 0;
        CRC32C c = new CRC32C();
        for (int fi = 0; fi < files.size() && damage.isEmpty(); fi++) {
            Path f = files.get(fi);
            boolean lastFile = fi == files.size() - 1;
            ByteBuffer b;
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f)) {
                // Mapped: a file is preallocated (64 MB in etcd 3.4), and only its written part is read.
                b = ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, ch.size()).order(ByteOrder.LITTLE_ENDIAN);
            }
            int at = 0;
            while (at + 8 <= b.limit()) {
                long field = b.getLong(at);
                if (field == 0) break; // the end of what was written: preallocated zeros
                long length = field & 0x00ffffffffffffffL;
                int pad = field < 0 ? (int) ((field >>> 56) & 0x7) : 0;
                String where = f.getFileName() + " at offset " + at;
                if (length > b.limit() - at - 8L || length + pad > b.limit() - at - 8L) {
                    if (lastFile) torn = where + ": a record of " + length + " bytes cut short at the end of the log";
                    else damage.add(where + ": a record of " + length + " bytes runs past the end of its file");
                    break;
                }
                int dataAt = at + 8;
                Rec r = Rec.parse(b, dataAt, (int) length);
                if (r == null) {
                    if (lastFile && tornEntry(b, dataAt, (int) (length + pad))) torn = where + ": a record that does not decode, a sector of it zeros: a write cut short";
                    else damage.add(where + ": a record that is not a walpb.Record");
                    break;
                }
                if (r.type() == CRC) {
                    if (crc != 0 && r.crc() != crc) {
                        damage.add(where + ": the crc record carries " + Integer.toUnsignedString(r.crc(), 16) + ", the chain is at " + Integer.toUnsignedString(crc, 16));
                        break;
                    }
                    crc = r.crc();
                } else {
                    c.reset();
                    c.update(b.duplicate().position(r.dataAt()).limit(r.dataAt() + r.dataLength()));
                    int next = Crc32cMath.combine(crc, (int) c.getValue(), r.dataLength());
                    if (next != r.crc()) {
                        if (lastFile && tornEntry(b, dataAt, (int) (length + pad))) torn = where + ": a record fails its crc, a sector of it zeros: a write cut short";
                        else damage.add(where + ": a record of type " + r.type + " fails its crc (the chain is broken: etcd stops here)");
                        break;
                    }
                    crc = next;
                    if (r.type() == ENTRY) {
                        Entry e = entry(b, r.dataAt(), r.dataLength());
                        if (e == null) {
                            damage.add(where + ": an entry record that is not a raftpb.Entry");
                            break;
                        }
                        // A later entry of an index already read replaces it and every entry after it (raft's log).
                        while (!entries.isEmpty() && entries.get(entries.size() - 1).index() >= e.index()) entries.remove(entries.size() - 1);
                        if (e.index() > from) entries.add(e);
                        last = e.index();
                    } else if (r.type() == STATE) {
                        long[] hs = varints(b, r.dataAt(), r.dataLength(), 3);
                        if (hs[2] > 0) commit = hs[2];
                    }
                }
                at = dataAt + (int) length + pad;
            }
        }
        return new Read(entries, last, commit, torn, damage, files.size());
    }

    /** The sector size etcd's torn-write check splits a record by. */
    private static final int SECTOR = 512;

    /**
     * etcd's {@code isTornEntry}: a record of the last file is torn, not damaged, when a piece of it that lies within
     * one 512-byte sector is all zeros (that sector never reached the disk); else its failure is damage.
     */
    private static boolean tornEntry(ByteBuffer b, int at, int length) {
        int end = Math.min(b.limit(), at + length);
        int i = at;
        while (i < end) {
            int chunkEnd = Math.min(end, (i / SECTOR + 1) * SECTOR);
            boolean zero = true;
            for (int k = i; k < chunkEnd && zero; k++) zero = b.get(k) == 0;
            if (zero) return true;
            i = chunkEnd;
        }
        return false;
    }

    /**
     * The fields numbered 1 to 7 of a protobuf message at [at, at + length): each varint's value, each length-delimited
     * field's place (the last of each number); fixed-size fields passed over. Null when it does not decode.
     */
    private static final class Fields {
        final long[] varint = new long[8];
        final int[] bytesAt = new int[8];
        final int[] bytesLength = new int[8];

        static Fields of(ByteBuffer b, int at, int length) {
            Fields f = new Fields();
            int end = at + length;
            int i = at;
            while (i < end) {
                long[] t = varint(b, i, end);
                if (t == null) return null;
                i = (int) t[1];
                int field = (int) (t[0] >>> 3);
                int wire = (int) (t[0] & 7);
                boolean kept = field >= 1 && field <= 7;
                if (wire == 0) {
                    long[] v = varint(b, i, end);
                    if (v == null) return null;
                    i = (int) v[1];
                    if (kept) f.varint[field] = v[0];
                } else if (wire == 2) {
                    long[] n = varint(b, i, end);
                    if (n == null || n[0] < 0 || n[1] + n[0] > end) return null;
                    if (kept) {
                        f.bytesAt[field] = (int) n[1];
                        f.bytesLength[field] = (int) n[0];
                    }
                    i = (int) (n[1] + n[0]);
                } else {
                    i = dev.walkit.format.ProtoWire.skip(b, i, end, wire);
                    if (i < 0) return null;
                }
            }
            return f;
        }
    }

    /** A walpb.Record's fields: type 1, crc 2 and where its data (3) lies; null when it is not one. */
    private record Rec(long type, int crc, int dataAt, int dataLength) {
        static Rec parse(ByteBuffer b, int at, int length) {
            Fields f = Fields.of(b, at, length);
            if (f == null || f.varint[1] < 1 || f.varint[1] > 5) return null;
            return new Rec(f.varint[1], (int) f.varint[2], f.bytesAt[3], f.bytesLength[3]);
        }
    }

    /** A raftpb.Entry at {@code at}: Type 1, Term 2, Index 3, Data 4; null when it does not decode. */
    static Entry entry(ByteBuffer b, int at, int length) {
        Fields f = Fields.of(b, at, length);
        if (f == null) return null;
        byte[] data = new byte[f.bytesLength[4]];
        b.get(f.bytesAt[4], data);
        return new Entry(f.varint[3], f.varint[2], (int) f.varint[1], data);
    }

    /** The varint fields 1..{@code n} of the message at {@code at} (0 when absent, or when it does not decode). */
    private static long[] varints(ByteBuffer b, int at, int length, int n) {
        Fields f = Fields.of(b, at, length);
        return f == null ? new long[n] : java.util.Arrays.copyOfRange(f.varint, 1, n + 1);
    }

    /** {value, next index} of the varint at {@code at}, or null when it runs past {@code end}. */
    static long[] varint(ByteBuffer b, int at, int end) {
        return dev.walkit.format.ProtoWire.varint(b, at, end);
    }
}
