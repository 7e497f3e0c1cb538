package dev.walkit.format.pass;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.CleanReplay;

import java.util.function.BooleanSupplier;

/**
 * A WAL read behind its writer with the light replay (the check {@code walverify --level semantic} makes of a healthy
 * log): each call reads on to what the file holds now; at the end, the state digest, or null when the light replay did
 * not take what was read (damage, an incomplete transaction, …: a full {@link Pass#replay} says why).
 */
public final class ReadBehind {
    private final WalFile file;
    private final WalReader reader;
    private final CleanReplay replay = CleanReplay.forDigest();
    private boolean refused;

    public ReadBehind(WalFile file) {
        this.file = file;
        this.reader = new WalReader(file, ReaderOptions.defaults());
    }

    /** Reads the records up to the file's size as it is now; false once the light replay does not take them. */
    public boolean readOn(BooleanSupplier cancelled) {
        if (refused) return false;
        for (ReadResult x; (x = reader.next()) != null; ) {
            if (!(x instanceof RecordView v)) {
                replay.damage(((DamageSpan) x).offset());
                refused = true;
                return false;
            }
            if (!replay.accept(v)) {
                refused = true;
                return false;
            }
            if (cancelled.getAsBoolean()) throw new java.util.concurrent.CancellationException("the output was abandoned");
        }
        return true;
    }

    /** The state digest of what was read, or null when the light replay did not take it. */
    public String end() {
        return !refused && replay.end() ? replay.digest(file::readFully) : null;
    }
}
