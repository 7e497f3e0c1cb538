package dev.walkit.format.replay;

import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.WalWriter;
import dev.walkit.format.group.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link WalFollower} across a compaction's rename it did not see coming. */
class WalFollowerTest {
    @TempDir
    Path dir;

    private static final int KEYS = 10;

    private static KeyValue put(int rev) {
        int k = rev % KEYS;
        return KeyValue.put(("/k/" + k).getBytes(StandardCharsets.US_ASCII), rev <= KEYS ? rev : k == 0 ? KEYS : k, rev,
                (rev - 1) / KEYS + 1, ("v" + rev).getBytes(StandardCharsets.US_ASCII), 0);
    }

    @Test
    void whatTheOldFileGotBeforeTheRenameIsReadBeforeTheNewFile() throws Exception {
        Path wal = dir.resolve("wal");
        RecordEncoder enc = new RecordEncoder();
        List<Long> applied = new ArrayList<>();
        List<Boolean> snapshot = new ArrayList<>();
        Replayer.Listener l = new Replayer.Listener() {
            @Override
            public void applied(Transaction txn, KeyIndex keys) {
                applied.add(txn.revision());
                snapshot.add(txn.isSnapshot());
            }
        };
        try (FileOutputStream out = new FileOutputStream(wal.toFile())) {
            for (int r = 1; r <= 30; r++) out.write(enc.encode(put(r)));
        }
        try (WalFollower f = new WalFollower(wal, ReaderOptions.defaults(), l, null, 1_000_000_000L)) {
            f.poll(System.nanoTime());
            assertEquals(30, applied.size());
            // The store appends 31..40, then its compaction (the snapshot at 40, then 41..50) is renamed over the log,
            // all before the follower's next poll.
            try (FileOutputStream out = new FileOutputStream(wal.toFile(), true)) {
                for (int r = 31; r <= 40; r++) out.write(enc.encode(put(r)));
            }
            Path next = dir.resolve("wal.compact");
            try (WalWriter w = WalWriter.create(next)) {
                SnapshotPrefixWriter p = SnapshotPrefixWriter.begin(w::append, 40, KEYS);
                List<Integer> revs = new ArrayList<>();
                for (int r = 31; r <= 40; r++) revs.add(r);
                revs.sort(java.util.Comparator.comparing(r -> "/k/" + (r % KEYS)));
                for (int r : revs) p.append(put(r));
                p.end();
                for (int r = 41; r <= 50; r++) w.appendRaw(enc.encode(put(r)));
                w.sync();
            }
            Files.move(next, wal, StandardCopyOption.ATOMIC_MOVE);
            f.poll(System.nanoTime());
            List<Long> want = new ArrayList<>();
            for (long r = 1; r <= 50; r++) want.add(r);
            assertEquals(want, applied, "31..40 from the old file, as written; then 41..50 from the new one");
            assertEquals(List.of(), snapshot.stream().filter(s -> s).toList(), "the new file's snapshot prefix is passed over: nothing in it is new");
        }
    }
}
