package dev.walkit.migrate;

import dev.walkit.format.ReaderOptions;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;

/** The live keys of a WAL, replayed with shared-format; values read back from the file by offset. */
public final class WalSource implements KeySource {
    private final WalFile file;
    private final Iterator<KeyState> it;
    private final long revision;
    private final String describe;

    private WalSource(WalFile file, List<KeyState> live, long revision) {
        this.file = file;
        this.it = live.iterator();
        this.revision = revision;
        this.describe = "WAL " + file.path();
    }

    public static WalSource open(Path path) throws IOException {
        WalFile f = WalFile.open(Wal.resolve(path), ReaderOptions.defaults().maxRecLen());
        try {
            ReaderOptions ro = ReaderOptions.defaults();
            Replayer s = Replay.run(f, Wal.requireWal(f, ro.maxRecLen()).format(), ro, Replayer.Options.defaults(), null).state();
            if (!s.damage().isEmpty()) {
                throw new IOException(f.path() + ": the WAL has " + s.damage().size() + " damaged span(s): run walverify / walrecover first");
            }
            return new WalSource(f, s.keys().sortedLive(), s.revision());
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return it.hasNext();
    }

    @Override
    public SourceKey next() {
        KeyState k = it.next();
        return new SourceKey(k.key(), file.read(k.valueOffset(), k.valueLength()), k.createRevision(), k.modRevision(), k.version(), k.lease());
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public long revision() {
        return revision;
    }

    @Override
    public boolean leaseIsTtl() {
        return false;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
