package dev.walkit.format.pass;

import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.WalFormat;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
import java.nio.file.Path;

/**
 * walverify of an etcd db: its bbolt structure (meta pages and their checksum, every page of the key, meta and
 * lease buckets reached, etcdctl snapshot's SHA-256 trailer) and each revision decoded, and its history replayed as
 * it is made ({@link FormReplay}: no temporary file, no value read back), at every level, so that every level gives
 * the one account of the db (its records, transactions and revisions); the rules' findings and the state are the
 * semantic level's.
 */
final class EtcdDbPass {
    private EtcdDbPass() {
    }

    static PassReport verify(Path db, Level level, Pass.Listener l) throws IOException {
        try (EtcdDb e = EtcdDb.openDatabase(db)) {
            e.checkValues(level == Level.VALUES);
            EtcdDbWal.Summary[] sum = {null};
            AccountListener listener = new AccountListener(l::damage);
            FormReplay.Result r = FormReplay.run(sink -> sum[0] = EtcdDbWal.emit(e, sink), listener);
            if (e.readAgain()) {
                // The tree was not the whole answer (damaged, or rolled back): the salvage past it is the db's account.
                listener = new AccountListener(l::damage);
                r = FormReplay.run(sink -> sum[0] = EtcdDbWal.emit(e, sink), listener);
            }
            Account a = Account.ofForm(e.store(db, sum[0].revisions()), r, listener);
            if (level.replays()) a.findings().forEach(l::finding);
            for (String d : a.store().damage()) l.storeDamage("etcd-db", d);
            return new PassReport(WalFormat.V2, level, level.replays() ? a : a.read(), null, -1, false, null,
                    SplitScan.Outcome.ONE_THREAD);
        }
    }
}
