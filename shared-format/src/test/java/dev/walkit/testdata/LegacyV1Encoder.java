package dev.walkit.testdata;

import dev.walkit.format.LegacyV1;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** Encodes legacy v1 records (docs/format.md §8), for tests of reading and converting old logs. The toolkit never writes v1. */
public final class LegacyV1Encoder {
    private LegacyV1Encoder() {
    }

    public static byte[] encode(long revision, byte[] key, byte[] value, boolean delete) {
        int n = LegacyV1.HEADER_LENGTH + key.length + value.length;
        ByteBuffer b = ByteBuffer.allocate(n + LegacyV1.CRC_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(revision).putInt(key.length).putInt(value.length).put((byte) (delete ? 1 : 0)).put(key).put(value);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, n);
        b.putInt((int) crc.getValue());
        return b.array();
    }
}
