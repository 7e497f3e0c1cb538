package dev.walkit.migrate;

import dev.walkit.format.WalFile;
import dev.walkit.format.pass.Pass;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;

/** The live keys of a WAL, replayed with shared-format; values read back from the file by offset. */
public final class WalSource implements KeySource {
    private final WalFile file;
    private final Iterator<Pass.LiveKey> it;
    private final long revision;
    private final String describe;
    private final SourceGate.Said gate;
    private final AutoCloseable closes;

    private WalSource(WalFile file, List<Pass.LiveKey> live, long revision, SourceGate.Said gate, AutoCloseable closes) {
        this.file = file;
        this.it = live.iterator();
        this.revision = revision;
        this.describe = "WAL " + file.path();
        this.gate = gate;
        this.closes = closes;
    }

    /** The live keys the pass's replay {@code r} left (closed with this source), as {@code gate} let them through. */
    static WalSource of(Pass.Replayed r, SourceGate.Said gate) {
        return new WalSource(r.file(), r.replay().live(), r.replay().revision(), gate, r);
    }

    /**
     * A WAL that must be whole (an output read back to check it, a state written a moment ago): any damaged span is an
     * error. A source given on the command line goes through {@link SourceGate#wal} instead.
     */
    public static WalSource open(Path path) throws IOException {
        Pass.Replayed r = Pass.replay(path, null);
        if (!r.replay().damage().isEmpty()) {
            r.close();
            throw new IOException(r.report().path() + ": the WAL has " + r.replay().damage().size() + " damaged span(s): run walverify / walrecover first");
        }
        return of(r, SourceGate.Said.HEALTHY);
    }

    @Override
    public boolean hasNext() {
        return it.hasNext();
    }

    @Override
    public SourceKey next() {
        Pass.LiveKey k = it.next();
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
    public SourceGate.Said gate() {
        return gate;
    }

    @Override
    public void close() throws IOException {
        if (closes == null) {
            file.close();
            return;
        }
        try {
            closes.close();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}
