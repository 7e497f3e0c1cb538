package dev.walkit.verify;

import dev.walkit.format.SplitScan;
import dev.walkit.format.Finding;
import dev.walkit.format.WalFormat;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * walverify of kine's state.db, read from a private copy: SQLite's own check of the file ({@code PRAGMA quick_check}:
 * its pages and indexes) on a thread of its own and, beside it, at every level, its rows replayed as a WAL's
 * revisions by the rules every log is held to, as they are read ({@link FormReplay}; kine keeps no version: counted
 * from the rows). What SQLite finds is damage.
 */
final class KineVerify {
    private KineVerify() {
    }

    /** What {@code PRAGMA quick_check} finds (its pages and indexes), each line a damage. */
    private static List<String> quickCheck(KineDb db) {
        List<String> damage = new ArrayList<>();
        try (Connection c = db.connectAgain(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("PRAGMA quick_check")) {
            while (r.next()) {
                String line = r.getString(1);
                if ("ok".equals(line)) continue;
                // One row may hold several lines, under a heading naming the database.
                for (String one : line.split("\n")) if (!one.isBlank() && !one.startsWith("*** in database")) damage.add("SQLite quick_check: " + one.strip());
            }
        } catch (SQLException e) {
            damage.add("SQLite quick_check failed: " + e.getMessage());
        }
        return damage;
    }

    static VerifyReport verify(Path stateDb, VerifyLevel level, Verifier.Listener l) throws IOException {
        try (KineDb db = KineDb.open(stateDb, "walverify")) {
            // SQLite's check on a second connection and thread, beside the rows' replay: each is a full read.
            CompletableFuture<List<String>> check = CompletableFuture.supplyAsync(() -> quickCheck(db));
            // The rows replayed as they are read (the WAL form, no file between): a database with none is no revision, not an error.
            KineHistoryWal.Summary[] sum = {null};
            FormReplay.Result r;
            List<String> damage;
            try {
                r = FormReplay.run(sink -> sum[0] = KineHistoryWal.emit(db, sink));
            } finally {
                damage = check.join(); // before the copy is deleted, whatever the replay met
            }
            for (Finding f : r.findings()) l.finding(f);
            damage = new ArrayList<>(damage);
            damage.addAll(sum[0].unreadable()); // rows a damaged page of the table held: not replayed
            for (String d : damage) l.storeDamage("kine", d);
            String detail = String.format("SQLite, %d row(s); kine keeps no version: versions counted from the rows kept", sum[0].rows());
            long first = r.firstRevision();
            return new VerifyReport(stateDb, WalFormat.V2, level, Files.size(stateDb), sum[0].rows(), r.transactions(), first,
                    first < 0 ? -1 : r.revision(), sum[0].compactRevision() > 0 ? sum[0].compactRevision() : -1, r.liveKeys(),
                    r.tombstones(), List.of(), r.findings(), null, -1, false, null, SplitScan.Outcome.ONE_THREAD, "kine", detail, damage);
        }
    }
}
