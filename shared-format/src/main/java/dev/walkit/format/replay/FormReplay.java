package dev.walkit.format.replay;

import dev.walkit.format.CrcRange;
import dev.walkit.format.Flags;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordSink;
import dev.walkit.format.TransactionGrouper;
import dev.walkit.format.WalEntry;

import java.io.IOException;

/**
 * A store's WAL form (an etcd db's, kine's: {@code EtcdDbWal.emit}, {@code KineHistoryWal.emit}) replayed as it is
 * made, with no file between: for a check of the history by the rules (walverify), which needs no value read back.
 * Each record becomes the {@link WalEntry} its WAL form would read as, at the offset it would have there; the only
 * value replay reads back is the snapshot marker's count, kept here. An empty form is a store with no revision.
 */
public final class FormReplay {
    /** Gives a store's WAL form to a sink. */
    @FunctionalInterface
    public interface Form {
        void emit(RecordSink sink) throws IOException;
    }

    private FormReplay() {
    }

    public static Replayer run(Form form) throws IOException {
        long[] offset = {0};
        long[] markerAt = {-1};
        byte[][] marker = {null};
        Replayer r = new Replayer(Replayer.Options.defaults(), (at, len) -> at == markerAt[0] ? marker[0] : new byte[len],
                new Replayer.Listener() { }, new KeyIndex());
        TransactionGrouper g = new TransactionGrouper(r);
        form.emit(kv -> {
            long at = offset[0];
            int length = RecordEncoder.recordLength(kv);
            offset[0] += length;
            if (kv.key().length == 0 && (kv.flags() & Flags.SNAPSHOT) != 0) {
                markerAt[0] = at;
                marker[0] = kv.value();
            }
            g.accept(new WalEntry(at, length, kv.flags(), kv.modRevision(), kv.key(), kv.createRevision(), kv.version(), kv.lease(),
                    at, kv.value().length, CrcRange.STANDARD));
        });
        g.end();
        r.end(offset[0]);
        return r;
    }
}
