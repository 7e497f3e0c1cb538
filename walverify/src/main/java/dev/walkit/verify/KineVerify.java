package dev.walkit.verify;

import dev.walkit.format.SplitScan;
import dev.walkit.format.Finding;
import dev.walkit.format.WalFormat;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;
import dev.walkit.format.replay.FormReplay;
import dev.walkit.format.replay.Replayer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * walverify of kine's state.db, read from a private copy: SQLite's own check of the file ({@code PRAGMA
 * quick_check}: its pages and indexes), then, at every level, its rows replayed as a WAL's revisions by the rules
 * every log is held to, as they are read ({@link FormReplay}; kine keeps no version: counted from the rows). What
 * SQLite finds is damage.
 */
final class KineVerify {
    private KineVerify() {
    }

    static VerifyReport verify(Path stateDb, VerifyLevel level, Verifier.Listener l) throws IOException {
        try (KineDb db = KineDb.open(stateDb, "walverify")) {
            List<String> damage = new ArrayList<>();
            try (Statement s = db.connection().createStatement(); ResultSet r = s.executeQuery("PRAGMA quick_check")) {
                while (r.next()) {
                    String line = r.getString(1);
                    if (!"ok".equals(line)) damage.add("SQLite quick_check: " + line);
                }
            } catch (SQLException e) {
                damage.add("SQLite quick_check failed: " + e.getMessage());
            }
            // The rows replayed as they are read (the WAL form, no file between): a database with none is no revision, not an error.
            KineHistoryWal.Summary[] sum = {null};
            Replayer r = FormReplay.run(sink -> sum[0] = KineHistoryWal.emit(db, sink));
            for (Finding f : r.findings()) l.finding(f);
            String detail = String.format("SQLite, %d row(s); kine keeps no version: versions counted from the rows kept", sum[0].rows());
            long first = r.firstRevision();
            return new VerifyReport(stateDb, WalFormat.V2, level, Files.size(stateDb), sum[0].rows(), r.transactions(), first,
                    first < 0 ? -1 : r.revision(), sum[0].compactRevision() > 0 ? sum[0].compactRevision() : -1, r.keys().liveCount(),
                    r.keys().tombstoneCount(), List.of(), r.findings(), null, -1, false, null, SplitScan.Outcome.ONE_THREAD, "kine", detail, damage);
        }
    }
}
