package dev.walkit.bench;

import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;

import java.nio.file.Path;

/**
 * Writes a kine db's whole history as a WAL (its WAL form, docs/architecture.md: every row a revision), the WAL of
 * the same history and live state that scripts/bench-stores measures the kine db against, besides the WAL of its live
 * state only ({@code walmigrate kine --out-wal}).
 *   KineHistory STATE_DB OUT_WAL
 */
public final class KineHistory {
    private KineHistory() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: KineHistory STATE_DB OUT_WAL");
            System.exit(2);
        }
        try (KineDb db = KineDb.open(Path.of(args[0]), "bench")) {
            KineHistoryWal.Summary s = KineHistoryWal.write(db, Path.of(args[1]));
            System.out.println(s.rows() + " rows, revisions to " + s.lastRevision());
        }
    }
}
