package dev.walkit.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Reader of the legacy v1 format (docs/format.md §8), with the same damage rules and resync as
 * {@link WalReader}. v1 carries no create_revision, version or lease: entries have them 0 and
 * replay derives create_revision and version by the rules of §5.
 */
public final class V1Reader implements EntrySource {
    private final WalFile file;
    private final boolean ownsFile;
    private final int maxRecLen;
    private final Resync resync;
    private final CRC32C crc = new CRC32C();
    private long pos;

    public V1Reader(WalFile file, int maxRecLen, boolean ownsFile) {
        this.file = file;
        this.maxRecLen = maxRecLen;
        this.ownsFile = ownsFile;
        this.resync = new Resync(file, Framing.v1(maxRecLen));
    }

    @Override
    public LogItem next() {
        final long size = file.size();
        if (pos >= size) return null;
        final long start = pos;
        final long remaining = size - start;
        ByteBuffer buf = file.bufferAt(start, LegacyV1.HEADER_LENGTH);
        int idx = file.indexIn(start);
        long frame = LegacyV1.plausibleFrame(buf, idx, remaining, maxRecLen);
        if (frame > 0 && !file.fitsWindow((int) frame)) {
            // Grow the window only for a length its CRC vouches for (never allocate from an untrusted length).
            crc.reset();
            file.updateCrc(crc, start, start + frame - LegacyV1.CRC_LENGTH);
            if ((int) crc.getValue() != file.intAt(start + frame - LegacyV1.CRC_LENGTH)) frame = -frame;
        }
        if (frame > 0) {
            buf = file.bufferAt(start, (int) frame);
            idx = file.indexIn(start);
        } else if (frame < -1) {
            // A plausible header no CRC vouches for: a CRC mismatch (or garbage), found without viewing it.
            long claimed = -frame;
            int stored = file.intAt(start + claimed - LegacyV1.CRC_LENGTH);
            int computed = (int) crc.getValue();
            long next = resync.findNext(start + 1, Set.of());
            pos = next;
            return new DamageSpan(start + claimed == next ? DamageKind.CRC_MISMATCH : DamageKind.GARBAGE_SPAN, start, next - start,
                    String.format("stored crc = %08x, computed crc = %08x", stored, computed), stored & 0xFFFFFFFFL, computed & 0xFFFFFFFFL, null, 0);
        }
        int stored = 0;
        int computed = 0;
        if (frame > 0) {
            int crcAt = idx + (int) frame - LegacyV1.CRC_LENGTH;
            stored = buf.getInt(crcAt);
            crc.reset();
            file.updateCrc(crc, start, start + frame - LegacyV1.CRC_LENGTH);
            computed = (int) crc.getValue();
            if (stored == computed) {
                pos = start + frame;
                int keyLen = buf.getInt(idx + LegacyV1.KEY_LEN_OFFSET);
                int valLen = buf.getInt(idx + LegacyV1.VAL_LEN_OFFSET);
                byte[] key = new byte[keyLen];
                buf.get(idx + LegacyV1.HEADER_LENGTH, key);
                int flags = buf.get(idx + LegacyV1.FLAGS_OFFSET) & Flags.DELETE;
                return new WalEntry(start, frame, flags, buf.getLong(idx + LegacyV1.REVISION_OFFSET), key, 0, 0, 0,
                        start + LegacyV1.HEADER_LENGTH + keyLen, valLen, CrcRange.STANDARD);
            }
        }
        String headerDetail = frame > 0 ? null : LegacyV1.describe(buf, idx, remaining, maxRecLen); // before resync moves the window
        long next = resync.findNext(start + 1, Set.of());
        pos = next;
        DamageKind kind;
        String detail;
        if (frame > 0) {
            boolean exact = start + frame == next;
            kind = exact ? DamageKind.CRC_MISMATCH : DamageKind.GARBAGE_SPAN;
            detail = String.format("stored crc = %08x, computed crc = %08x", stored, computed);
        } else {
            detail = headerDetail;
            boolean cut = remaining < LegacyV1.HEADER_LENGTH || detail.contains("past the end");
            kind = cut && next == size ? DamageKind.TORN_TAIL : cut ? DamageKind.BAD_HEADER : DamageKind.GARBAGE_SPAN;
        }
        return new DamageSpan(kind, start, next - start, detail, frame > 0 ? stored & 0xFFFFFFFFL : -1,
                frame > 0 ? computed & 0xFFFFFFFFL : -1, null, 0);
    }

    @Override
    public WalFormat format() {
        return WalFormat.V1;
    }

    @Override
    public WalFile file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        if (ownsFile) file.close();
    }
}
