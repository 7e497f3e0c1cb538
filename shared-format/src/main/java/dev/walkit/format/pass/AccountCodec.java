package dev.walkit.format.pass;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Drop;
import dev.walkit.format.account.Store;
import dev.walkit.format.assess.Assessment;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.DropReason;
import dev.walkit.format.replay.LeaseMetadata;
import dev.walkit.format.replay.RevisionAccount;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The account and the replay's ending facts in a saved index ({@link SavedIndex}): every field written in order, enums
 * by name (a constant renamed or removed makes the index foreign, never misread), lists with their lengths. Read back,
 * the account is equal to the one the replay made.
 */
final class AccountCodec {
    private AccountCodec() {
    }

    static void write(DataOutput o, Account a) throws IOException {
        writeStore(o, a.store());
        o.writeLong(a.records());
        o.writeLong(a.transactions());
        o.writeLong(a.firstRevision());
        o.writeLong(a.lastRevision());
        o.writeLong(a.compactRevision());
        o.writeLong(a.liveKeys());
        o.writeLong(a.tombstones());
        o.writeLong(a.leases());
        RevisionAccount r = a.revisions();
        o.writeBoolean(r != null);
        if (r != null) {
            o.writeLong(r.base());
            o.writeLong(r.top());
            o.writeLong(r.applied());
            o.writeLong(r.dropped());
            o.writeLong(r.damagedUpTo());
        }
        o.writeInt(a.damage().size());
        for (DamageLocator.Located l : a.damage()) {
            writeSpan(o, l.span());
            o.writeLong(l.revisionBefore());
            o.writeLong(l.revisionAfter());
        }
        o.writeInt(a.findings().size());
        for (Finding f : a.findings()) writeFinding(o, f);
        o.writeLong(a.findingCount());
        o.writeInt(a.drops().size());
        for (Drop d : a.drops()) {
            o.writeLong(d.offset());
            o.writeLong(d.revision());
            o.writeInt(d.records());
            writeKeys(o, d.keys());
            writeReason(o, d.reason());
        }
        writeKeys(o, a.affectedKeys());
        o.writeUTF(a.verdict().name());
    }

    static Account read(DataInput in) throws IOException {
        Store store = readStore(in);
        long records = in.readLong();
        long transactions = in.readLong();
        long first = in.readLong();
        long last = in.readLong();
        long compact = in.readLong();
        long live = in.readLong();
        long tombstones = in.readLong();
        long leases = in.readLong();
        RevisionAccount revisions = in.readBoolean()
                ? new RevisionAccount(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong()) : null;
        int n = count(in);
        List<DamageLocator.Located> damage = new ArrayList<>(n);
        for (int i = 0; i < n; i++) damage.add(new DamageLocator.Located(readSpan(in), in.readLong(), in.readLong()));
        n = count(in);
        List<Finding> findings = new ArrayList<>(n);
        for (int i = 0; i < n; i++) findings.add(readFinding(in));
        long findingCount = in.readLong();
        n = count(in);
        List<Drop> drops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) drops.add(new Drop(in.readLong(), in.readLong(), in.readInt(), readKeys(in), readReason(in)));
        List<byte[]> affected = readKeys(in);
        Assessment.Verdict verdict = Assessment.Verdict.valueOf(in.readUTF());
        return new Account(store, records, transactions, first, last, compact, live, tombstones, leases, revisions, damage, findings,
                findingCount, drops, affected, verdict);
    }

    static void writeFacts(DataOutput o, StoreHistory.Facts f) throws IOException {
        o.writeLong(f.revision());
        o.writeLong(f.compactRevision());
        LeaseMetadata l = f.leases();
        o.writeInt(l.keysByLease().size());
        for (Map.Entry<Long, Integer> e : l.keysByLease().entrySet()) {
            o.writeLong(e.getKey());
            o.writeInt(e.getValue());
        }
        o.writeLong(l.ttlSeconds());
        o.writeLong(l.nextLeaseId());
        o.writeInt(f.findingCounts().size());
        for (Map.Entry<DamageKind, Integer> e : f.findingCounts().entrySet()) {
            o.writeUTF(e.getKey().name());
            o.writeInt(e.getValue());
        }
    }

    static StoreHistory.Facts readFacts(DataInput in) throws IOException {
        long revision = in.readLong();
        long compact = in.readLong();
        Map<Long, Integer> byLease = new TreeMap<>();
        for (int i = 0, n = count(in); i < n; i++) byLease.put(in.readLong(), in.readInt());
        LeaseMetadata leases = new LeaseMetadata(byLease, in.readLong(), in.readLong());
        Map<DamageKind, Integer> counts = new EnumMap<>(DamageKind.class);
        for (int i = 0, n = count(in); i < n; i++) counts.put(DamageKind.valueOf(in.readUTF()), in.readInt());
        return new StoreHistory.Facts(revision, compact, leases, counts);
    }

    /** A replay's checkpoint, or its absence ({@link dev.walkit.format.replay.Replayer.Checkpoint}). */
    static void writeCheckpoint(DataOutput o, dev.walkit.format.replay.Replayer.Checkpoint c) throws IOException {
        o.writeBoolean(c != null);
        if (c == null) return;
        o.writeLong(c.records());
        o.writeLong(c.transactions());
        o.writeLong(c.ordinaryApplied());
        o.writeLong(c.revision());
        o.writeLong(c.firstRevision());
        o.writeLong(c.compactRevision());
        o.writeLong(c.prefixRevision());
        o.writeLong(c.maxLeaseSeen());
        dev.walkit.format.replay.SnapshotPrefix.State p = c.prefix();
        o.writeBoolean(p.marker());
        o.writeLong(p.compactRevision());
        o.writeLong(p.expected());
        o.writeLong(p.present());
        o.writeBoolean(p.markerless());
        o.writeBoolean(p.closed());
    }

    static dev.walkit.format.replay.Replayer.Checkpoint readCheckpoint(DataInput in) throws IOException {
        if (!in.readBoolean()) return null;
        long records = in.readLong();
        long transactions = in.readLong();
        long ordinary = in.readLong();
        long revision = in.readLong();
        long first = in.readLong();
        long compact = in.readLong();
        long prefixRevision = in.readLong();
        long maxLease = in.readLong();
        dev.walkit.format.replay.SnapshotPrefix.State p = new dev.walkit.format.replay.SnapshotPrefix.State(in.readBoolean(), in.readLong(),
                in.readLong(), in.readLong(), in.readBoolean(), in.readBoolean());
        return new dev.walkit.format.replay.Replayer.Checkpoint(records, transactions, ordinary, revision, first, compact, prefixRevision,
                maxLease, p);
    }

    /** What was opened: the store's kind and file, an etcd db's own facts, kine's summary, the store as the account names it. */
    static void writeSource(DataOutput o, StoreHistory.Source s) throws IOException {
        o.writeUTF(s.kind().name());
        writeString(o, s.file().toString());
        StoreHistory.EtcdFacts e = s.etcd();
        o.writeBoolean(e != null);
        if (e != null) {
            dev.walkit.format.bbolt.BoltMeta m = e.meta();
            o.writeBoolean(m != null);
            if (m != null) {
                o.writeInt(m.slot());
                o.writeLong(m.offset());
                o.writeInt(m.magic());
                o.writeInt(m.version());
                o.writeInt(m.pageSize());
                o.writeLong(m.rootPage());
                o.writeLong(m.freelist());
                o.writeLong(m.highWater());
                o.writeLong(m.txid());
                o.writeLong(m.checksum());
                o.writeLong(m.computedChecksum());
                writeString(o, m.problem());
            }
            o.writeLong(e.compactRevision());
            o.writeLong(e.consistentIndex());
            o.writeInt(e.leases().size());
            for (Map.Entry<Long, Long> l : e.leases().entrySet()) {
                o.writeLong(l.getKey());
                o.writeLong(l.getValue());
            }
            o.writeInt(e.damage().size());
            for (dev.walkit.format.bbolt.BoltDamage d : e.damage()) {
                o.writeLong(d.page());
                o.writeLong(d.offset());
                writeString(o, d.detail());
            }
            dev.walkit.format.etcd.EtcdDbWal.Summary u = e.summary();
            o.writeLong(u.revisions());
            o.writeLong(u.transactions());
            o.writeLong(u.snapshotKeys());
            o.writeLong(u.compactRevision());
            o.writeLong(u.lastRevision());
        }
        dev.walkit.format.kine.KineHistoryWal.Summary k = s.kine();
        o.writeBoolean(k != null);
        if (k != null) {
            o.writeLong(k.rows());
            o.writeLong(k.compactRevision());
            o.writeLong(k.snapshotKeys());
            o.writeLong(k.lastRevision());
            o.writeInt(k.unreadable().size());
            for (String u : k.unreadable()) writeString(o, u);
        }
        o.writeBoolean(s.store() != null);
        if (s.store() != null) writeStore(o, s.store());
    }

    static StoreHistory.Source readSource(DataInput in) throws IOException {
        Store.Kind kind = Store.Kind.valueOf(in.readUTF());
        Path file = Path.of(readString(in));
        StoreHistory.EtcdFacts etcd = null;
        if (in.readBoolean()) {
            dev.walkit.format.bbolt.BoltMeta meta = in.readBoolean() ? new dev.walkit.format.bbolt.BoltMeta(in.readInt(), in.readLong(), in.readInt(),
                    in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), readString(in))
                    : null;
            long compact = in.readLong();
            long consistent = in.readLong();
            Map<Long, Long> leases = new TreeMap<>();
            for (int i = 0, n = count(in); i < n; i++) leases.put(in.readLong(), in.readLong());
            List<dev.walkit.format.bbolt.BoltDamage> damage = new ArrayList<>();
            for (int i = 0, n = count(in); i < n; i++) damage.add(new dev.walkit.format.bbolt.BoltDamage(in.readLong(), in.readLong(), readString(in)));
            dev.walkit.format.etcd.EtcdDbWal.Summary sum = new dev.walkit.format.etcd.EtcdDbWal.Summary(in.readLong(), in.readLong(), in.readLong(),
                    in.readLong(), in.readLong());
            etcd = new StoreHistory.EtcdFacts(meta, compact, consistent, leases, damage, sum);
        }
        dev.walkit.format.kine.KineHistoryWal.Summary kine = null;
        if (in.readBoolean()) {
            long rows = in.readLong();
            long compact = in.readLong();
            long snapshot = in.readLong();
            long last = in.readLong();
            List<String> unreadable = new ArrayList<>();
            for (int i = 0, n = count(in); i < n; i++) unreadable.add(readString(in));
            kine = new dev.walkit.format.kine.KineHistoryWal.Summary(rows, compact, snapshot, last, unreadable);
        }
        Store store = in.readBoolean() ? readStore(in) : null;
        return new StoreHistory.Source(kind, file, etcd, kine, store);
    }

    private static void writeStore(DataOutput o, Store s) throws IOException {
        o.writeUTF(s.kind().name());
        writeString(o, s.path() == null ? null : s.path().toString());
        o.writeLong(s.bytes());
        writeString(o, s.format());
        o.writeLong(s.records());
        o.writeLong(s.leases());
        writeString(o, s.detail());
        o.writeInt(s.damage().size());
        for (String d : s.damage()) writeString(o, d);
    }

    private static Store readStore(DataInput in) throws IOException {
        Store.Kind kind = Store.Kind.valueOf(in.readUTF());
        String path = readString(in);
        long bytes = in.readLong();
        String format = readString(in);
        long records = in.readLong();
        long leases = in.readLong();
        String detail = readString(in);
        int n = count(in);
        List<String> damage = new ArrayList<>(n);
        for (int i = 0; i < n; i++) damage.add(readString(in));
        return new Store(kind, path == null ? null : Path.of(path), bytes, format, records, leases, detail, damage);
    }

    private static void writeSpan(DataOutput o, DamageSpan s) throws IOException {
        o.writeUTF(s.kind().name());
        o.writeLong(s.offset());
        o.writeLong(s.length());
        writeString(o, s.detail());
        o.writeLong(s.storedCrc());
        o.writeLong(s.computedCrc());
        writeString(o, s.crcRange() == null ? null : s.crcRange().name());
        o.writeInt(s.records());
        o.writeLong(s.claimedRevision());
        o.writeBoolean(s.claimedTxnCont());
    }

    private static DamageSpan readSpan(DataInput in) throws IOException {
        DamageKind kind = DamageKind.valueOf(in.readUTF());
        long offset = in.readLong();
        long length = in.readLong();
        String detail = readString(in);
        long stored = in.readLong();
        long computed = in.readLong();
        String range = readString(in);
        return new DamageSpan(kind, offset, length, detail, stored, computed, range == null ? null : CrcRange.valueOf(range), in.readInt(),
                in.readLong(), in.readBoolean());
    }

    private static void writeFinding(DataOutput o, Finding f) throws IOException {
        o.writeUTF(f.kind().name());
        o.writeLong(f.offset());
        o.writeLong(f.length());
        o.writeLong(f.revision());
        o.writeInt(f.records());
        writeString(o, f.detail());
        writeBytes(o, f.key());
    }

    private static Finding readFinding(DataInput in) throws IOException {
        return new Finding(DamageKind.valueOf(in.readUTF()), in.readLong(), in.readLong(), in.readLong(), in.readInt(), readString(in),
                readBytes(in));
    }

    private static void writeReason(DataOutput o, DropReason r) throws IOException {
        if (r instanceof DropReason.RuleBroken b) {
            o.writeByte(1);
            writeFinding(o, b.finding());
        } else if (r instanceof DropReason.Incomplete i) {
            o.writeByte(2);
            writeFinding(o, i.finding());
        } else if (r instanceof DropReason.AfterToRevision t) {
            o.writeByte(3);
            o.writeLong(t.revision());
            o.writeLong(t.toRevision());
        } else if (r instanceof DropReason.AfterFirstDamage d) {
            o.writeByte(4);
            o.writeLong(d.offset());
        } else {
            throw new IllegalArgumentException("no saved form for " + r);
        }
    }

    private static DropReason readReason(DataInput in) throws IOException {
        int tag = in.readByte();
        return switch (tag) {
            case 1 -> new DropReason.RuleBroken(readFinding(in));
            case 2 -> new DropReason.Incomplete(readFinding(in));
            case 3 -> new DropReason.AfterToRevision(in.readLong(), in.readLong());
            case 4 -> new DropReason.AfterFirstDamage(in.readLong());
            default -> throw new IOException("unknown drop reason " + tag);
        };
    }

    private static void writeKeys(DataOutput o, List<byte[]> keys) throws IOException {
        o.writeInt(keys.size());
        for (byte[] k : keys) writeBytes(o, k);
    }

    private static List<byte[]> readKeys(DataInput in) throws IOException {
        int n = count(in);
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(readBytes(in));
        return keys;
    }

    private static void writeBytes(DataOutput o, byte[] b) throws IOException {
        o.writeInt(b == null ? -1 : b.length);
        if (b != null) o.write(b);
    }

    private static byte[] readBytes(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < -1) throw new IOException("negative length " + n);
        if (n == -1) return null;
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /** A string that may be null; longer than writeUTF's 64 KiB allows. */
    private static void writeString(DataOutput o, String s) throws IOException {
        writeBytes(o, s == null ? null : s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static String readString(DataInput in) throws IOException {
        byte[] b = readBytes(in);
        return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static int count(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) throw new IOException("negative count " + n);
        return n;
    }
}
