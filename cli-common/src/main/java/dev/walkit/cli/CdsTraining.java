package dev.walkit.cli;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The run that bin/_cds archives a tool's classes from ({@code WALKIT_CDS_TRAIN=1}): the command given, then the same
 * command over each other store bin/_cds made from the sample ({@code WALKIT_CDS_ALSO}, one path a line: the sample
 * recovered as a kine state.db and as an etcd db), so that the archive covers what reading every store loads (SQLite's
 * driver, the bbolt reader), not only a WAL's: walverify of kine's 1 M-row db starts 60 ms sooner.
 */
public final class CdsTraining {
    private CdsTraining() {
    }

    /** The other stores to read in this training run; none outside one. */
    public static List<Path> alsoPaths() {
        String training = System.getenv("WALKIT_CDS_TRAIN");
        String also = System.getenv("WALKIT_CDS_ALSO");
        List<Path> out = new ArrayList<>();
        if (training == null || training.isEmpty() || also == null) return out;
        for (String line : also.split("\n")) if (!line.isBlank()) out.add(Path.of(line.strip()));
        return out;
    }

    /**
     * Runs {@code args} with its last word (the PATH) replaced by each of {@link #alsoPaths}, through {@code plain} (the
     * tool's own parse and run, its output discarded), before the run itself. Outside training: nothing.
     */
    public static void alsoRead(String[] args, Function<String[], Integer> plain) {
        if (args.length == 0) return;
        for (Path p : alsoPaths()) {
            String[] a = args.clone();
            a[a.length - 1] = p.toString();
            plain.apply(a);
        }
    }

    /** A writer that keeps nothing (the training runs' output). */
    public static PrintWriter discard() {
        return new PrintWriter(Writer.nullWriter());
    }
}
