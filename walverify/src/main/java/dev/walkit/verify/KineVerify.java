package dev.walkit.verify;

import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.kine.KineCheck;
import dev.walkit.format.kine.KineDb;

import java.io.IOException;
import java.nio.file.Path;

/**
 * walverify of kine's state.db, read from a private copy: the one check of a kine database ({@link KineCheck}: SQLite's
 * {@code quick_check} beside its rows replayed as a WAL's revisions by the rules every log is held to; kine keeps no
 * version: counted from the rows), at every level, so that every level gives the one account of the db. What SQLite
 * finds is damage.
 */
final class KineVerify {
    private KineVerify() {
    }

    static VerifyReport verify(Path stateDb, VerifyLevel level, Verifier.Listener l) throws IOException {
        try (KineDb db = KineDb.open(stateDb, "walverify")) {
            Account a = KineCheck.account(db, stateDb, new AccountListener(l::damage));
            if (level == VerifyLevel.SEMANTIC) a.findings().forEach(l::finding);
            for (String d : a.store().damage()) l.storeDamage("kine", d);
            return new VerifyReport(WalFormat.V2, level, level == VerifyLevel.SEMANTIC ? a : a.read(), null, -1, false, null,
                    SplitScan.Outcome.ONE_THREAD);
        }
    }
}
