package dev.walkit.format.pass;

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
final class KinePass {
    private KinePass() {
    }

    /** Every row's value checked ({@link dev.walkit.format.ValueCheck}): one that fails is an undecodable-value finding at its revision (its id). */
    private static Account values(KineDb db, Account a, long bytes) throws IOException {
        try (java.sql.Statement s = db.connection().createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT id, CAST(name AS BLOB), value FROM kine NOT INDEXED WHERE deleted = 0 ORDER BY id")) {
            while (r.next()) {
                byte[] key = r.getBytes(2);
                byte[] value = r.getBytes(3);
                if (key == null || value == null || KineDb.internal(key)) continue;
                String why = dev.walkit.format.ValueCheck.check(key, value);
                if (why != null) {
                    a = a.withFinding(new dev.walkit.format.Finding(dev.walkit.format.DamageKind.UNDECODABLE_VALUE, 0, 0, r.getLong(1), 0,
                            "row " + r.getLong(1) + ", key " + dev.walkit.format.KeyQuote.quote(key) + ": " + why), bytes);
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IOException(db.source() + ": its values could not be read: " + e.getMessage(), e);
        }
        return a;
    }

    static PassReport verify(Path stateDb, Level level, Pass.Listener l) throws IOException {
        try (KineDb db = KineDb.open(stateDb, "walverify")) {
            return verify(db, stateDb, level, l);
        }
    }

    /** {@link #verify(Path, Level, Pass.Listener)} of {@code db}, open already (and left open: {@link Pass#live} reads on). */
    static PassReport verify(KineDb db, Path stateDb, Level level, Pass.Listener l) throws IOException {
        Account a = KineCheck.account(db, stateDb, () -> new AccountListener(l::damage));
        if (level == Level.VALUES) a = values(db, a, java.nio.file.Files.size(stateDb));
        if (level.replays()) a.findings().forEach(l::finding);
        for (String d : a.store().damage()) l.storeDamage("kine", d);
        return new PassReport(WalFormat.V2, level, level.replays() ? a : a.read(), null, -1, false, null,
                SplitScan.Outcome.ONE_THREAD);
    }
}
