package dev.walkit.testdata;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Applies each damage kind of docs/format.md §7 to a valid v2 log at a chosen record, and says which
 * damaged span a reader must report for it ({@link Expected}).
 */
public final class DamageInjector {
    /** What to damage. ZERO_BLOCK is a garbage span made of zeros, as a lost disk block looks. */
    public enum Kind {
        TORN_TAIL, CRC_MISMATCH, BAD_HEADER, GARBAGE_SPAN, ZERO_BLOCK, INCONSISTENT_HEADER, UNDECODABLE_PAYLOAD, CRC_RANGE_BUG,
        /** The first transaction of one record at or after the record asked for (else the last before it), appended twice. */
        DUPLICATED_RECORD
    }

    /** The damaged log and the span a reader must report. */
    public record Expected(byte[] log, DamageKind kind, long offset, long length) {
    }

    private final byte[] clean;
    private final List<long[]> records = new ArrayList<>();

    public DamageInjector(byte[] cleanLog) {
        this.clean = cleanLog;
        ByteBuffer b = le(cleanLog);
        long pos = 0;
        while (pos < cleanLog.length) {
            int len = RecordLayout.OVERHEAD + b.getInt((int) pos + RecordLayout.REC_LEN_OFFSET);
            records.add(new long[] {pos, len});
            pos += len;
        }
    }

    public int recordCount() {
        return records.size();
    }

    public long offset(int i) {
        return records.get(i)[0];
    }

    public int length(int i) {
        return (int) records.get(i)[1];
    }

    /** Record {@code i} as a KeyValue. */
    public dev.walkit.format.KeyValue record(int i) {
        int off = (int) offset(i);
        return new RecordView().wrap(le(clean), off, off).toKeyValue();
    }

    /**
     * The log with record {@code i} replaced by {@code change} of it, re-encoded with a right CRC: not
     * damage but a break of a replay rule (a version, a revision, a flag), for the replay to find.
     */
    public byte[] reencoded(int i, java.util.function.UnaryOperator<dev.walkit.format.KeyValue> change) {
        int off = (int) offset(i);
        int len = length(i);
        byte[] rec = new RecordEncoder().encode(change.apply(record(i)));
        byte[] out = new byte[clean.length - len + rec.length];
        System.arraycopy(clean, 0, out, 0, off);
        System.arraycopy(rec, 0, out, off, rec.length);
        System.arraycopy(clean, off + len, out, off + rec.length, clean.length - off - len);
        return out;
    }

    /** Record {@code j} is an ordinary transaction of one: neither it nor the record before it has TXN_CONT. */
    private boolean loneRecord(byte[] log, int j) {
        int flags = log[(int) offset(j) + RecordLayout.FLAGS_OFFSET];
        boolean prevCont = j > 0 && dev.walkit.format.Flags.isTxnCont(log[(int) offset(j - 1) + RecordLayout.FLAGS_OFFSET]);
        return !dev.walkit.format.Flags.isTxnCont(flags) && !dev.walkit.format.Flags.isSnapshot(flags) && !prevCont;
    }

    /** Damages record {@code i} of a copy of the clean log (TORN_TAIL: the last record, whatever {@code i}). */
    public Expected apply(Kind kind, int i, long seed) {
        return applyTo(clean.clone(), kind, i, seed);
    }

    /**
     * Damages record {@code i} of {@code log}, a copy of the clean log that may already be damaged at
     * records after {@code i} (apply several in descending record order: offsets before a damage do
     * not move). Returns the damaged log, which may be {@code log} itself.
     */
    public Expected applyTo(byte[] log, Kind kind, int i, long seed) {
        ByteBuffer b = le(log);
        int at = (int) offset(i);
        int len = length(i);
        int recLen = len - RecordLayout.OVERHEAD;
        switch (kind) {
            case TORN_TAIL -> {
                int last = records.size() - 1;
                int cut = Math.max(1, length(last) / 3);
                return new Expected(Arrays.copyOf(log, (int) (offset(last) + length(last)) - cut), DamageKind.TORN_TAIL, offset(last), length(last) - cut);
            }
            case CRC_MISMATCH -> {
                log[at + RecordLayout.KV_OFFSET + recLen / 2] ^= 0x20;
                return new Expected(log, DamageKind.CRC_MISMATCH, at, len);
            }
            case BAD_HEADER -> {
                log[at + RecordLayout.FLAGS_OFFSET] |= (byte) 0x80;
                return new Expected(log, DamageKind.BAD_HEADER, at, len);
            }
            case GARBAGE_SPAN -> {
                byte[] g = new byte[100 + new Random(seed).nextInt(4000)];
                new Random(seed).nextBytes(g);
                g[0] = (byte) 0xF8; // reserved flag bits: no header starts here
                byte[] out = new byte[log.length + g.length];
                System.arraycopy(log, 0, out, 0, at);
                System.arraycopy(g, 0, out, at, g.length);
                System.arraycopy(log, at, out, at + g.length, log.length - at);
                return new Expected(out, DamageKind.GARBAGE_SPAN, at, g.length);
            }
            case ZERO_BLOCK -> {
                Arrays.fill(log, at, at + len, (byte) 0);
                return new Expected(log, DamageKind.GARBAGE_SPAN, at, len);
            }
            case INCONSISTENT_HEADER -> {
                b.putShort(at + RecordLayout.KEY_OFFSET_OFFSET, (short) (RecordLayout.CANONICAL_KEY_OFFSET + 1));
                new RecordEncoder().writeCrc(b, at, recLen, CrcRange.STANDARD);
                return new Expected(log, DamageKind.INCONSISTENT_HEADER, at, len);
            }
            case UNDECODABLE_PAYLOAD -> {
                RecordView v = new RecordView().wrap(b, at, at);
                int tagAt = v.kvStart() + v.modRevOffset() - 1; // the mod_revision tag
                log[tagAt] = (byte) 0x1F; // field 3, wire type 7
                new RecordEncoder().writeCrc(b, at, recLen, CrcRange.STANDARD);
                return new Expected(log, DamageKind.UNDECODABLE_PAYLOAD, at, len);
            }
            case CRC_RANGE_BUG -> {
                if (log.length != clean.length) throw new IllegalArgumentException("crc range bug applies to the whole clean log");
                for (long[] r : records) {
                    new RecordEncoder().writeCrc(b, (int) r[0], (int) r[1] - RecordLayout.OVERHEAD, CrcRange.PAYLOAD_ONLY);
                }
                return new Expected(log, DamageKind.CRC_RANGE_BUG, 0, log.length);
            }
            case DUPLICATED_RECORD -> {
                int j = i;
                while (j < records.size() && !loneRecord(log, j)) j++;
                if (j == records.size()) { // none after: the last one before
                    j = i;
                    while (j >= 0 && !loneRecord(log, j)) j--;
                }
                if (j < 0) throw new IllegalArgumentException("no transaction of one record in the log");
                int from = (int) offset(j);
                int n = length(j);
                byte[] out = new byte[log.length + n];
                System.arraycopy(log, 0, out, 0, from + n);
                System.arraycopy(log, from, out, from + n, log.length - from);
                return new Expected(out, DamageKind.DUPLICATED_RECORD, from + n, n);
            }
            default -> throw new IllegalArgumentException(kind.toString());
        }
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }
}
