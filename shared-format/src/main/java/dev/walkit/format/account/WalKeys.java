package dev.walkit.format.account;

import dev.walkit.format.CrcRange;
import dev.walkit.format.CrcRepair;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of the valid records in a byte range of a v2 log (an incomplete transaction's, for its {@link Drop}), and the
 * key still legible where a damaged span starts.
 */
public final class WalKeys {
    private WalKeys() {
    }

    /** {@link AccountListener.KeysIn} over {@code file}: v2 records from the range's start until one does not decode; v1: none. */
    public static AccountListener.KeysIn of(WalFile file, WalFormat format) {
        if (format != WalFormat.V2) return (from, to) -> List.of();
        return new AccountListener.KeysIn() {
            @Override
            public List<byte[]> keys(long from, long to) {
                List<byte[]> out = new ArrayList<>();
                long pos = from;
                while (pos < to) {
                    KeyValue kv = recordAt(file, pos);
                    if (kv == null) break;
                    out.add(kv.key());
                    pos += RecordLayout.OVERHEAD + file.intAt(pos + RecordLayout.REC_LEN_OFFSET);
                }
                return out;
            }

            @Override
            public byte[] legibleKey(long from, long to) {
                return WalKeys.legibleKey(file, from, to);
            }

            @Override
            public byte[] claimedKey(long from, long to) {
                return WalKeys.claimedKey(file, from, to);
            }
        };
    }

    /**
     * The key still legible at the start of a damaged span, as a canonical writer lays it out: tag 0x0A, its length in a
     * 4-byte varint, its bytes, all before {@code end} (a record cut short, or whose CRC or flags are wrong, usually keeps
     * them); null when those bytes are not there or not in that shape. A record whose CRC fails by one byte gives
     * its key as written, that byte put back ({@link #repairedAt}), even when the damaged byte is in the key.
     */
    public static byte[] legibleKey(WalFile file, long offset, long end) {
        Repaired r = repairedAt(file, offset);
        if (r != null) return r.kv().key();
        long kv = offset + RecordLayout.KV_OFFSET;
        long keyAt = kv + RecordLayout.CANONICAL_KEY_OFFSET;
        if (keyAt > Math.min(end, file.size())) return null;
        byte[] head = file.read(kv, RecordLayout.CANONICAL_KEY_OFFSET);
        if (head[0] != 0x0A) return null;
        long len = 0;
        for (int i = 0; i < RecordLayout.KEY_LENGTH_VARINT_BYTES; i++) {
            int b = head[1 + i] & 0xff;
            len |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                if (i != RecordLayout.KEY_LENGTH_VARINT_BYTES - 1) return null; // not the canonical 4-byte form
                break;
            }
        }
        int recLen = file.intAt(offset + RecordLayout.REC_LEN_OFFSET);
        if (len <= 0 || (recLen > 0 && len > recLen) || keyAt + len > Math.min(end, file.size())) return null;
        return file.read(keyAt, (int) len);
    }

    /** A record whose CRC failed by one byte, that byte put back ({@link CrcRepair}), decoded. */
    public record Repaired(CrcRepair.Repair repair, KeyValue kv) {
    }

    /** The record at {@code offset} with the one byte that fails its CRC put back, decoded; null when it is not so. */
    public static Repaired repairedAt(WalFile file, long offset) {
        if (offset < 0 || offset + RecordLayout.HEADER_LENGTH > file.size()) return null;
        int recLen = file.intAt(offset + RecordLayout.REC_LEN_OFFSET);
        if (recLen < 0 || offset + RecordLayout.OVERHEAD + (long) recLen > file.size()) return null;
        byte[] rec = file.read(offset, RecordLayout.OVERHEAD + recLen);
        CrcRepair.Repair r = CrcRepair.singleByte(ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN), 0, recLen, CrcRange.STANDARD);
        if (r == null) return null;
        RecordView v = new RecordView().wrap(ByteBuffer.wrap(CrcRepair.repaired(rec, r)).order(ByteOrder.LITTLE_ENDIAN), 0, offset);
        if (v.fields().error() != null) return null;
        return new Repaired(r, v.toKeyValue());
    }

    /**
     * {@link #legibleKey} where the bytes at {@code offset} start as the writer lays a header out (no reserved flag,
     * key_offset canonical, mod_rev_offset within rec_len): a record overwritten from within keeps them; random bytes
     * almost never do. Null otherwise.
     */
    public static byte[] claimedKey(WalFile file, long offset, long end) {
        if (offset + RecordLayout.HEADER_LENGTH > Math.min(end, file.size())) return null;
        byte[] h = file.read(offset, RecordLayout.HEADER_LENGTH);
        ByteBuffer b = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        int recLen = b.getInt(RecordLayout.REC_LEN_OFFSET);
        int modRevOffset = b.getShort(RecordLayout.MOD_REV_OFFSET_OFFSET) & 0xFFFF;
        if ((h[RecordLayout.FLAGS_OFFSET] & dev.walkit.format.Flags.RESERVED_MASK) != 0 || recLen <= 0
                || (b.getShort(RecordLayout.KEY_OFFSET_OFFSET) & 0xFFFF) != RecordLayout.CANONICAL_KEY_OFFSET
                || modRevOffset <= RecordLayout.CANONICAL_KEY_OFFSET || modRevOffset >= recLen) {
            return null;
        }
        return legibleKey(file, offset, end);
    }

    /** The v2 record at {@code offset}, decoded (null when it is not one). */
    public static KeyValue recordAt(WalFile file, long offset) {
        return recordAt(file, offset, true);
    }

    /** As {@link #recordAt(WalFile, long)}; without {@code value} the value is not copied out (a keys-only answer). */
    public static KeyValue recordAt(WalFile file, long offset, boolean value) {
        if (offset < 0 || offset + RecordLayout.HEADER_LENGTH > file.size()) return null;
        int recLen = file.intAt(offset + RecordLayout.REC_LEN_OFFSET);
        if (recLen < 0 || offset + RecordLayout.OVERHEAD + (long) recLen > file.size()) return null;
        byte[] rec = file.read(offset, RecordLayout.OVERHEAD + recLen);
        RecordView v = new RecordView().wrap(ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN), 0, offset);
        if (v.fields().error() != null) return null;
        return v.toKeyValue(value);
    }
}
