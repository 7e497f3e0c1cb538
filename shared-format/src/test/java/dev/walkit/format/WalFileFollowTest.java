package dev.walkit.format;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file followed as it is written ({@link WalFile#follow}): a reader sees the records up to the size it
 * was told and no further, and goes on from there when told more; bytes past the size (a record still
 * being written) are never read, so the window holds no half-written bytes to be used later.
 */
class WalFileFollowTest {
    @TempDir
    Path dir;

    @Test
    void aReaderGoesOnFromWhereTheWriterHadGot() throws Exception {
        LogBuilder log = LogBuilder.puts(200);
        byte[] all = log.bytes();
        Path p = dir.resolve("wal");
        ReaderOptions ro = ReaderOptions.defaults();
        try (FileChannel out = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                WalFile f = WalFile.follow(p, ro.maxRecLen())) {
            WalReader reader = new WalReader(f, ro);
            assertEquals(0, f.size());
            assertNull(reader.next(), "nothing written yet");
            List<Long> seen = new ArrayList<>();
            int written = 0;
            for (int cut : new int[] {1, 2, 50, 51, 120, 200}) {
                long end = cut == log.count() ? all.length : log.offset(cut);
                out.write(ByteBuffer.wrap(all, (int) log.offset(written), (int) (end - log.offset(written))), log.offset(written));
                // Where the next record will go, bytes not yet right (a write under way): the reader must not
                // take them into its window, where they would stand for the record once it is written.
                if (cut < log.count()) out.write(ByteBuffer.wrap(new byte[log.length(cut)]), end);
                f.extendTo(end);
                for (ReadResult x; (x = reader.next()) != null; ) {
                    RecordView v = assertInstanceOfRecord(x);
                    seen.add(v.offset());
                }
                assertEquals(cut, seen.size(), "records read once the writer had written " + cut);
                written = cut;
            }
            for (int i = 0; i < log.count(); i++) assertEquals(log.offset(i), seen.get(i));
        }
    }

    private static RecordView assertInstanceOfRecord(ReadResult x) {
        assertTrue(x instanceof RecordView, () -> "damage where a record was written: " + x);
        return (RecordView) x;
    }

    /** What a follower is told ({@link WalWriter#onFlush}) is always where a record ends: it never sees half of one. */
    @Test
    void theWriterTellsRecordBoundariesOnly() throws Exception {
        LogBuilder source = LogBuilder.puts(3000);
        Path runs = LogBuilder.write(dir, "runs", source.bytes());
        Path p = dir.resolve("wal");
        List<Long> told = new ArrayList<>();
        Random r = new Random(5);
        RecordEncoder encoder = new RecordEncoder();
        try (WalFile src = WalFile.open(runs, 1 << 20); WalWriter w = WalWriter.create(p)) {
            w.onFlush(told::add);
            int copied = 0;
            for (int i = 1; i <= 400; i++) {
                // Values of up to 1.5 MiB: some records do not fit the writer's 1 MiB buffer.
                byte[] value = new byte[r.nextInt(10) == 0 ? r.nextInt(3 << 19) : r.nextInt(5000)];
                KeyValue kv = KeyValue.put(("/registry/k/" + i).getBytes(StandardCharsets.UTF_8), i, i, 1, value, 0);
                switch (i % 3) {
                    case 0 -> w.append(kv);
                    case 1 -> w.appendRaw(encoder.encode(kv));
                    default -> {
                        // A run of whole records copied from another log, as walrecover copies kept records.
                        int n = 1 + r.nextInt(20);
                        long from = source.offset(copied);
                        long to = source.offset(copied + n - 1) + source.length(copied + n - 1);
                        w.appendFrom(src, from, to - from);
                        copied += n;
                    }
                }
            }
        }
        Set<Long> ends = new HashSet<>();
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            WalReader reader = new WalReader(f, ro);
            for (ReadResult x; (x = reader.next()) != null; ) {
                RecordView v = assertInstanceOfRecord(x);
                ends.add(v.offset() + v.length());
            }
        }
        assertTrue(told.size() > 100, "only " + told.size() + " sizes told");
        for (long size : told) assertTrue(ends.contains(size), "told " + size + ", not where a record ends");
    }

    @Test
    void theSizeOnlyGrows() throws Exception {
        Path p = LogBuilder.write(dir, "wal", LogBuilder.puts(3).bytes());
        try (WalFile f = WalFile.follow(p, ReaderOptions.defaults().maxRecLen()); WalFile opened = WalFile.open(p, 1 << 20)) {
            f.extendTo(10);
            assertThrows(IllegalArgumentException.class, () -> f.extendTo(9));
            assertThrows(IllegalStateException.class, () -> opened.extendTo(opened.size() + 1));
        }
    }
}
