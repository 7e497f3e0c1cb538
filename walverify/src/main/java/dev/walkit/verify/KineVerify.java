package dev.walkit.verify;

import dev.walkit.format.SplitScan;
import dev.walkit.format.Finding;
import dev.walkit.format.WalFormat;
import dev.walkit.format.kine.KineCheck;
import dev.walkit.format.kine.KineDb;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * walverify of kine's state.db, read from a private copy: {@link KineCheck}, the one check of a kine database
 * (SQLite's {@code quick_check} beside its rows replayed as a WAL's revisions by the rules every log is held to;
 * kine keeps no version: counted from the rows). What SQLite finds is damage.
 */
final class KineVerify {
    private KineVerify() {
    }

    static VerifyReport verify(Path stateDb, VerifyLevel level, Verifier.Listener l) throws IOException {
        try (KineDb db = KineDb.open(stateDb, "walverify")) {
            KineCheck check = KineCheck.run(db);
            FormReplay.Result r = check.replay();
            for (Finding f : r.findings()) l.finding(f);
            List<String> damage = check.damage();
            for (String d : damage) l.storeDamage("kine", d);
            String detail = String.format("SQLite, %d row(s); kine keeps no version: versions counted from the rows kept", check.summary().rows());
            long first = r.firstRevision();
            long compact = check.summary().compactRevision();
            return new VerifyReport(stateDb, WalFormat.V2, level, Files.size(stateDb), check.summary().rows(), r.transactions(), first,
                    first < 0 ? -1 : r.revision(), compact > 0 ? compact : -1, r.liveKeys(),
                    r.tombstones(), List.of(), r.findings(), null, -1, false, null, SplitScan.Outcome.ONE_THREAD, "kine", detail, damage);
        }
    }
}
