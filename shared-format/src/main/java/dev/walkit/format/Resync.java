package dev.walkit.format;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Resync past damage (docs/format.md §7 "garbage span"): scan forward byte by byte for the next
 * offset where a complete record's header and CRC validate.
 *
 * <p>It stays near linear in the bytes crossed: the cheap {@link HeaderCheck} rejects almost every
 * offset before any CRC; a short candidate's CRC is computed directly; a long candidate's (a random
 * header may claim up to {@code maxRecLen} bytes) in constant time from CRC checkpoints taken every
 * 4 KiB from the scan's origin, with {@link Crc32cMath}: {@code crc([a,b)) = C(b) ^ shift(C(a), b-a)}.
 * The checkpoints only ever cover the bytes from the origin to the farthest candidate end, once.
 */
final class Resync {
    private static final int CP_SHIFT = 12;
    private static final int CP = 1 << CP_SHIFT;
    /** Candidates up to this many bytes have their CRC computed directly. */
    private static final int DIRECT_LIMIT = 64 << 10;
    /** Checkpoints made from one read: 1 MiB. */
    private static final int CHECKPOINTS_PER_READ = 256;

    /**
     * The shift operators for checkpoint arithmetic, made on the first long candidate (≈ 4 ms of
     * start-up that a log without damage never needs: every reader makes a Resync).
     */
    private static final class Tables {
        /** POW[r] = x^(8r): the shift over r bytes, r < CP. */
        static final int[] POW = new int[CP];
        static final int POW_CP = Crc32cMath.xPow8n(CP);

        static {
            int x8 = Crc32cMath.xPow8n(1);
            POW[0] = 1 << 31;
            for (int r = 1; r < CP; r++) {
                POW[r] = Crc32cMath.multModP(x8, POW[r - 1]);
            }
        }
    }

    private final WalFile file;
    private final Framing framing;
    private final CRC32C crc = new CRC32C();
    private long origin;
    private int[] checkpoints = new int[64];
    private int computed;
    /** The CRC stored at the offset of the last {@link #endCrc}. */
    private int storedAtEnd;

    Resync(WalFile file, Framing framing) {
        this.file = file;
        this.framing = framing;
    }

    /**
     * The first offset at or after {@code from} where a record validates under the standard CRC or
     * one of {@code altRanges}; the file size when there is none.
     */
    long findNext(long from, Set<CrcRange> altRanges) {
        return findNext(from, altRanges, Long.MAX_VALUE);
    }

    /**
     * As {@link #findNext(long, Set)}, looking only at starts below {@code until} (a record that starts
     * there may end past it); -1 when there is none below {@code until} and {@code until} is before the
     * last possible start.
     */
    long findNext(long from, Set<CrcRange> altRanges, long until) {
        final long size = file.size();
        origin = from;
        computed = 0;
        // Room for the checkpoints of the rest of the file (up to 4 MiB of them) before the scan: growing
        // the array inside the compiled loop is a branch it rarely takes, and each first take of it
        // sends the loop back to the interpreter.
        long wanted = Math.min(((size - from) >>> CP_SHIFT) + 2, 1 << 20);
        if (checkpoints.length < wanted) checkpoints = new int[(int) wanted];
        checkpoints[0] = 0;
        final long lastStart = Math.min(size - framing.minFrame(), until - 1);
        final int header = framing.headerLength();
        long p = from;
        while (p <= lastStart) {
            ByteBuffer buf = file.bufferAt(p, header);
            int idx = file.indexIn(p);
            // Scan inside this chunk without re-fetching the buffer for every byte.
            int stop = (int) Math.min(buf.limit() - header, idx + (lastStart - p)) + 1;
            final long flagMask = framing.firstByteMask(); // v2 only: also the zero-word rule below
            final long ninthMask = framing.ninthByteMask();
            final int wordsEnd = buf.limit() - 16;
            for (int i = idx; i < stop; i++) {
                if (flagMask != 0 && i + 8 <= stop && i <= wordsEnd) {
                    // Eight offsets at a time: a header can only start where the first byte has no
                    // reserved flag bit and rec_len's top byte (8 further on) is small; skip words where
                    // no offset has both (nearly all of random garbage). The zero-byte test below can
                    // flag a byte that is not zero, never miss one that is: plausibleFrame decides.
                    long word = buf.getLong(i);
                    long m = word & flagMask;
                    long t = buf.getLong(i + 8) & ninthMask;
                    long z = (m - 0x0101_0101_0101_0101L) & ~m & 0x8080_8080_8080_8080L
                            & (t - 0x0101_0101_0101_0101L) & ~t & 0x8080_8080_8080_8080L;
                    if (z == 0) {
                        i += 7;
                        continue;
                    }
                    if (word == 0) {
                        // Zeros (a lost block): the six offsets whose key_offset lies in this word read 0,
                        // below the smallest key_offset of any encoding.
                        i += 5;
                        continue;
                    }
                    // Straight to the first byte without a reserved bit (little-endian: the lowest flagged byte).
                    i += Long.numberOfTrailingZeros(z) >>> 3;
                }
                long at = p + (i - idx);
                long frame = framing.plausibleFrame(buf, i, size - at);
                if (frame > 0 && validates(at, frame, altRanges)) return at;
            }
            p += stop - idx;
        }
        return until <= size - framing.minFrame() ? -1 : size;
    }

    private boolean validates(long a, long frame, Set<CrcRange> altRanges) {
        long b = a + frame - RecordLayout.CRC_LENGTH;
        if (frame <= DIRECT_LIMIT) {
            int stored = file.intAt(b);
            if (direct(a, b) == stored) return true;
            for (CrcRange r : altRanges) {
                if (direct(a + r.start(), b) == stored) return true;
            }
            return false;
        }
        int cb = endCrc(b);
        int stored = storedAtEnd;
        if ((cb ^ Crc32cMath.shift(at(a), Crc32cMath.xPow8n(b - a))) == stored) return true;
        for (CrcRange r : altRanges) {
            long s = a + r.start();
            if ((cb ^ Crc32cMath.shift(at(s), Crc32cMath.xPow8n(b - s))) == stored) return true;
        }
        return false;
    }

    /**
     * C(b) for a long candidate's CRC offset {@code b}, far ahead of the scan, with the CRC stored there
     * ({@link #storedAtEnd}): the bytes from b's checkpoint to b + 4 in one read (a read for the stored
     * CRC and another for the bytes before it made two system calls of each candidate, most of the time
     * resync took to cross 100 MiB of random bytes).
     */
    private int endCrc(long b) {
        long rel = b - origin;
        int i = (int) (rel >>> CP_SHIFT);
        ensure(i);
        int r = (int) (rel & (CP - 1));
        ByteBuffer v = file.peek(origin + ((long) i << CP_SHIFT), r + RecordLayout.CRC_LENGTH);
        storedAtEnd = v.getInt(r);
        crc.reset();
        crc.update(v.limit(r));
        return Crc32cMath.shift(checkpoints[i], Tables.POW[r]) ^ (int) crc.getValue();
    }

    private int direct(long from, long to) {
        crc.reset();
        file.updateCrc(crc, from, to);
        return (int) crc.getValue();
    }

    /** C(j) = crc32c of bytes [origin, j). */
    private int at(long j) {
        long rel = j - origin;
        int i = (int) (rel >>> CP_SHIFT);
        ensure(i);
        int r = (int) (rel & (CP - 1));
        long base = origin + ((long) i << CP_SHIFT);
        int part = r == 0 ? 0 : direct(base, j);
        return Crc32cMath.shift(checkpoints[i], Tables.POW[r]) ^ part;
    }

    /** Checkpoints up to C(origin + i * 4 KiB), computed from reads of up to 1 MiB (not one per 4 KiB). */
    private void ensure(int i) {
        if (i >= checkpoints.length) checkpoints = Arrays.copyOf(checkpoints, Math.max(i + 1, checkpoints.length * 2));
        while (computed < i) {
            int blocks = Math.min(i - computed, CHECKPOINTS_PER_READ);
            ByteBuffer v = file.peek(origin + ((long) computed << CP_SHIFT), blocks << CP_SHIFT);
            for (int k = 0; k < blocks; k++) {
                crc.reset();
                crc.update(v.limit((k + 1) << CP_SHIFT).position(k << CP_SHIFT));
                checkpoints[computed + 1] = Crc32cMath.shift(checkpoints[computed], Tables.POW_CP) ^ (int) crc.getValue();
                computed++;
            }
        }
    }
}
