package dev.walkit.format;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * For arbitrary byte flips, insertions and truncations of a valid log, the reader never throws,
 * never hangs, and accounts for every byte exactly once (in a valid record or a reported span).
 */
class ReaderProperties {
    private static byte[] clean;
    private static Path dir;

    @BeforeContainer
    static void build() throws IOException {
        LogBuilder b = new LogBuilder();
        long rev = 1;
        for (int i = 0; i < 12; i++, rev++) {
            byte[] k = ("/registry/pods/ns/p" + (i % 5)).getBytes(StandardCharsets.UTF_8);
            int flags = (i % 4 == 1) ? Flags.TXN_CONT : 0;
            b.add(new KeyValue(flags, k, rev, rev, 1, ("v" + i).repeat(i * 3).getBytes(StandardCharsets.UTF_8), i % 3 == 0 ? 7000 + i : 0));
            if (flags != 0) rev--;
        }
        clean = b.bytes();
        dir = Files.createTempDirectory("reader-props");
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) Files.delete(p);
        }
        Files.delete(dir);
    }

    /** One edit: 0 = flip a byte, 1 = insert bytes, 2 = truncate. */
    record Edit(int kind, int position, byte[] bytes) {
        byte[] apply(byte[] log) {
            int pos = Math.floorMod(position, log.length + 1);
            return switch (kind) {
                case 0 -> {
                    byte[] out = log.clone();
                    if (out.length > 0) out[Math.min(pos, out.length - 1)] ^= (byte) (bytes.length == 0 ? 1 : (bytes[0] | 1));
                    yield out;
                }
                case 1 -> {
                    byte[] out = new byte[log.length + bytes.length];
                    System.arraycopy(log, 0, out, 0, pos);
                    System.arraycopy(bytes, 0, out, pos, bytes.length);
                    System.arraycopy(log, pos, out, pos + bytes.length, log.length - pos);
                    yield out;
                }
                default -> Arrays.copyOf(log, pos);
            };
        }
    }

    @Provide
    Arbitrary<List<Edit>> edits() {
        Arbitrary<Edit> e = net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 100_000),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40)).as(Edit::new);
        return e.list().ofMinSize(1).ofMaxSize(4);
    }

    @Property
    void everyByteAccountedForOnce(@ForAll("edits") List<Edit> edits) throws IOException {
        byte[] log = clean;
        for (Edit e : edits) log = e.apply(log);
        Path p = dir.resolve("wal");
        Files.write(p, log);
        for (ReaderOptions o : new ReaderOptions[] {ReaderOptions.defaults(), ReaderOptions.frame()}) {
            long pos = 0;
            try (WalReader r = WalReader.open(p, o)) {
                for (ReadResult x; (x = r.next()) != null; ) {
                    assertEquals(pos, x.offset());
                    assertTrue(x.length() > 0);
                    pos += x.length();
                }
            }
            assertEquals(log.length, pos);
        }
    }
}
