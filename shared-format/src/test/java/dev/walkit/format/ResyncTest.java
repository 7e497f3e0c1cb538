package dev.walkit.format;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resync finds the offset a naive scan finds (every offset: the plausible header, then the CRC over the
 * whole record): through random bytes, past records longer than 64 KiB (whose CRC is reached through
 * checkpoints and a read at the record's end), with and without a broken CRC, up to the end of the file.
 */
class ResyncTest {
    @TempDir
    Path dir;

    static byte[] record(int valueBytes, Random rnd) {
        byte[] value = new byte[valueBytes];
        rnd.nextBytes(value);
        KeyValue kv = KeyValue.put("/registry/configmaps/default/big".getBytes(StandardCharsets.US_ASCII), 7, 7, 1, value, 0);
        return new RecordEncoder().encode(kv);
    }

    static byte[] garbage(int n, Random rnd) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /** Every offset from {@code from}: the first whose header is plausible and whose whole record's CRC matches. */
    static long naive(byte[] file, long from, int maxRecLen) {
        ByteBuffer buf = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        Framing v2 = Framing.v2(maxRecLen);
        CRC32C crc = new CRC32C();
        for (int p = (int) from; p + v2.minFrame() <= file.length; p++) {
            if (p + v2.headerLength() > file.length) break;
            long frame = v2.plausibleFrame(buf, p, file.length - p);
            if (frame <= 0) continue;
            int end = (int) (p + frame - RecordLayout.CRC_LENGTH);
            crc.reset();
            crc.update(file, p, end - p);
            if ((int) crc.getValue() == buf.getInt(end)) return p;
        }
        return file.length;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void findsWhatANaiveScanFinds(int seed) throws Exception {
        Random rnd = new Random(seed);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(garbage(200_000 + rnd.nextInt(100_000), rnd));
        byte[] big = record(100_000 + rnd.nextInt(200_000), rnd); // a frame above 64 KiB
        if (seed % 2 == 0) big[big.length / 2] ^= 1; // its CRC broken: resync must go past it
        out.write(big);
        out.write(garbage(50_000, rnd));
        out.write(record(100, rnd));
        out.write(garbage(rnd.nextInt(5_000), rnd)); // random bytes up to the end of the file
        byte[] bytes = out.toByteArray();
        Path f = Files.write(dir.resolve("wal-" + seed), bytes);
        int maxRecLen = ReaderOptions.defaults().maxRecLen();
        try (WalFile file = WalFile.open(f, maxRecLen)) {
            Resync resync = new Resync(file, Framing.v2(maxRecLen));
            long from = 0;
            int found = 0;
            // Each resync from just past the last one's answer, to the end of the file.
            while (from < bytes.length) {
                long want = naive(bytes, from, maxRecLen);
                assertEquals(want, resync.findNext(from, Set.of()), "seed " + seed + ", from " + from);
                if (want < bytes.length) found++;
                from = want + 1;
            }
            assertTrue(found >= (seed % 2 == 0 ? 1 : 2), "the records placed were found: " + found);
        }
    }
}
