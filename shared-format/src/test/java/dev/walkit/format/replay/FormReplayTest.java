package dev.walkit.format.replay;

import dev.walkit.format.DamageKind;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordSink;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A store's WAL form replayed as it is made ({@link FormReplay}) says what the replay of the same form written to a
 * file says: the light replay for a clean form (the form made once), {@link Replayer}'s findings at the same offsets
 * for one with something to report (made again); given value lengths only, as given the values.
 */
class FormReplayTest {
    @TempDir
    Path dir;

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int n) {
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) v[i] = (byte) ('a' + i % 26);
        return v;
    }

    /** A form: a snapshot prefix (compact revision 10, two keys), then transactions, one of two records. */
    private static List<KeyValue> clean() {
        List<KeyValue> f = new ArrayList<>();
        f.add(RecordEncoder.snapshotMarker(10, 2));
        f.add(KeyValue.put(k("/a"), 3, 7, 2, value(300), 0).withFlags(Flags.SNAPSHOT));
        f.add(KeyValue.put(k("/b"), 9, 9, 1, value(5), 600).withFlags(Flags.SNAPSHOT));
        f.add(KeyValue.put(k("/a"), 3, 11, 3, value(70_000), 0)); // longer than the light replay's first buffer
        f.add(KeyValue.put(k("/c"), 12, 12, 1, value(0), 0).withFlags(Flags.TXN_CONT));
        f.add(KeyValue.delete(k("/b"), 12).withFlags(Flags.DELETE));
        f.add(KeyValue.put(k("/b"), 13, 13, 1, value(40), 300));
        return f;
    }

    /** The form given as a store gives it: values to a sink that reads them, else lengths. Counts how often it is made. */
    private static final class Form implements FormReplay.Form {
        final List<KeyValue> records;
        int made;

        Form(List<KeyValue> records) {
            this.records = records;
        }

        @Override
        public void emit(RecordSink sink) throws IOException {
            made++;
            for (KeyValue kv : records) {
                boolean marker = kv.key().length == 0;
                if (sink.readsValues() || marker) sink.append(kv);
                else sink.append(new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version(), new byte[0], kv.lease()),
                        kv.value().length);
            }
        }
    }

    /** The same form written as a WAL and replayed from the file. */
    private Replayer fromFile(List<KeyValue> records) throws IOException {
        Path p = dir.resolve("wal-" + System.nanoTime());
        WalWriter w = WalWriter.create(p);
        for (KeyValue kv : records) w.append(kv);
        w.close();
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
            return Replay.run(f, ro, Replayer.Options.defaults(), null).state();
        }
    }

    private static void assertSame(Replayer file, FormReplay.Result form) {
        assertEquals(file.transactions(), form.transactions());
        assertEquals(file.firstRevision(), form.firstRevision());
        assertEquals(file.revision(), form.revision());
        assertEquals(file.compactRevision(), form.compactRevision());
        assertEquals(file.keys().liveCount(), form.liveKeys());
        assertEquals(file.keys().tombstoneCount(), form.tombstones());
        assertEquals(file.findings(), form.findings());
    }

    @Test
    void aCleanFormIsTheLightReplayOfItsFileMadeOnce() throws Exception {
        Form form = new Form(clean());
        FormReplay.Result r = FormReplay.run(form);
        assertSame(fromFile(clean()), r);
        assertEquals(1, form.made);
        assertEquals(List.of(), r.findings());
        assertEquals(13, r.revision());
        assertEquals(10, r.compactRevision());
        assertEquals(11, r.firstRevision());
        assertEquals(3, r.liveKeys()); // /a, /b (put again), /c
    }

    @Test
    void aFormWithSomethingToReportIsMadeAgainAndReportedAtItsFileOffsets() throws Exception {
        // /a's put at revision 11 says version 5, not 3: the light replay stops there, Replayer reports it.
        List<KeyValue> bad = clean();
        bad.set(3, KeyValue.put(k("/a"), 3, 11, 5, value(70_000), 0));
        Form form = new Form(bad);
        FormReplay.Result r = FormReplay.run(form);
        Replayer file = fromFile(bad);
        assertSame(file, r);
        assertEquals(2, form.made);
        Finding f = r.findings().get(0);
        assertEquals(DamageKind.VERSION_MISMATCH, f.kind());
        assertEquals(11, f.revision());
        // The offset is the record's in the file: the marker, two snapshot records before it, each value's bytes counted.
        long at = 0;
        for (int i = 0; i < 3; i++) at += RecordEncoder.recordLength(bad.get(i));
        assertEquals(at, f.offset());
    }

    @Test
    void aFormThatEndsInsideATransactionIsReported() throws Exception {
        List<KeyValue> open = new ArrayList<>(clean().subList(0, 5)); // ends with /c's TXN_CONT record
        FormReplay.Result r = FormReplay.run(new Form(open));
        assertSame(fromFile(open), r);
        assertEquals(1, r.findings().size());
    }

    /** The form as a store that keeps no version gives it (kine): every put after the prefix with version 0. */
    private static List<KeyValue> uncounted(List<KeyValue> records) {
        List<KeyValue> out = new ArrayList<>();
        for (KeyValue kv : records) {
            boolean put = (kv.flags() & (Flags.DELETE | Flags.SNAPSHOT)) == 0;
            out.add(put ? kv.withVersion(0) : kv);
        }
        return out;
    }

    @Test
    void versionsCountedByTheReplayAreTheOnesTheRulesExpect() throws Exception {
        // /a (version 2 in the prefix) is put at 11 (3), /c created at 12 (1), /b deleted and created again at 13 (1).
        Form form = new Form(uncounted(clean()));
        FormReplay.Result r = FormReplay.run(form);
        assertSame(fromFile(clean()), r);
        assertEquals(1, form.made);
        // The same when the full replay counts them: a later record breaks a rule.
        List<KeyValue> bad = new ArrayList<>(clean());
        bad.add(KeyValue.delete(k("/never"), 14).withFlags(Flags.DELETE));
        Form again = new Form(uncounted(bad));
        FormReplay.Result b = FormReplay.run(again);
        assertSame(fromFile(bad), b);
        assertEquals(2, again.made);
        assertEquals(DamageKind.DELETE_OF_ABSENT_KEY, b.findings().get(0).kind());
    }

    @Test
    void aCreateOfALiveKeyIsCountedAsOneAndReported() throws Exception {
        // kine's created row for a key that is live: version 1, create_revision its own, both paths say so alike.
        List<KeyValue> recreated = new ArrayList<>(clean());
        recreated.add(KeyValue.put(k("/a"), 14, 14, 1, value(3), 0));
        FormReplay.Result r = FormReplay.run(new Form(uncounted(recreated)));
        assertSame(fromFile(recreated), r);
        assertEquals(DamageKind.VERSION_MISMATCH, r.findings().get(0).kind());
        assertEquals(14, r.findings().get(0).revision());
    }

    @Test
    void anEmptyFormIsAStoreWithNoRevision() throws Exception {
        FormReplay.Result r = FormReplay.run(new Form(List.of()));
        assertEquals(List.of(0L, -1L, 0L, 0L, 0L, 0L), List.of(r.transactions(), r.firstRevision(), r.revision(), r.compactRevision(), r.liveKeys(), r.tombstones()));
        assertEquals(List.of(), r.findings());
    }

    @Test
    void aSinkThatReadsValuesIsNotGivenLengths() {
        RecordSink file = kv -> { };
        assertThrows(UnsupportedOperationException.class, () -> file.append(KeyValue.put(k("/a"), 1, 1, 1, new byte[0], 0), 10));
    }
}
