package dev.walkit.format.account;

import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** The keys of the valid records in a byte range of a v2 log: an incomplete transaction's, for its {@link Drop}. */
public final class WalKeys {
    private WalKeys() {
    }

    /** {@link AccountListener.KeysIn} over {@code file}: v2 records from the range's start until one does not decode; v1: none. */
    public static AccountListener.KeysIn of(WalFile file, WalFormat format) {
        if (format != WalFormat.V2) return (from, to) -> List.of();
        return (from, to) -> {
            List<byte[]> out = new ArrayList<>();
            long pos = from;
            while (pos < to) {
                KeyValue kv = recordAt(file, pos);
                if (kv == null) break;
                out.add(kv.key());
                pos += RecordLayout.OVERHEAD + file.intAt(pos + RecordLayout.REC_LEN_OFFSET);
            }
            return out;
        };
    }

    /** The v2 record at {@code offset}, decoded (null when it is not one). */
    public static KeyValue recordAt(WalFile file, long offset) {
        if (offset < 0 || offset + RecordLayout.HEADER_LENGTH > file.size()) return null;
        int recLen = file.intAt(offset + RecordLayout.REC_LEN_OFFSET);
        if (recLen < 0 || offset + RecordLayout.OVERHEAD + (long) recLen > file.size()) return null;
        byte[] rec = file.read(offset, RecordLayout.OVERHEAD + recLen);
        RecordView v = new RecordView().wrap(ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN), 0, offset);
        if (v.fields().error() != null) return null;
        return v.toKeyValue();
    }
}
