package dev.walkit.verify;

import dev.walkit.format.SplitScan;
import dev.walkit.format.Wal;
import dev.walkit.format.WalFormat;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.kine.KineHistoryWal;

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
 * every log is held to (kine keeps no version: counted from the rows). What SQLite finds is damage.
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
            Path tmp = Files.createTempDirectory("walkit-kine-");
            Path wal = tmp.resolve(Wal.WAL_FILE);
            try {
                KineHistoryWal.Summary sum = KineHistoryWal.write(db, wal);
                // The WAL form verified as any log is, on the same path (the light replay on both cores when clean).
                VerifyReport w = Verifier.verify(wal, VerifyLevel.SEMANTIC, l);
                String detail = String.format("SQLite, %d row(s); kine keeps no version: versions counted from the rows kept", sum.rows());
                return new VerifyReport(stateDb, WalFormat.V2, level, Files.size(stateDb), sum.rows(), w.transactions(), w.firstRevision(),
                        w.lastRevision(), sum.compactRevision() > 0 ? sum.compactRevision() : -1, w.liveKeys(), w.tombstones(),
                        List.of(), w.findings(), null, -1, false, null, SplitScan.Outcome.ONE_THREAD, "kine", detail, damage);
            } finally {
                Files.deleteIfExists(wal);
                Files.deleteIfExists(tmp);
            }
        }
    }
}
