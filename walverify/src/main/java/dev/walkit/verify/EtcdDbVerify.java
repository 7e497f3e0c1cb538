package dev.walkit.verify;

import dev.walkit.format.Finding;
import dev.walkit.format.SplitScan;
import dev.walkit.format.WalFormat;
import dev.walkit.format.bbolt.BoltDamage;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * walverify of an etcd db: its bbolt structure (meta pages and their checksum, every page of the key, meta and
 * lease buckets reached, etcdctl snapshot's SHA-256 trailer) and each revision decoded, at every level; at
 * semantic level its history is also replayed as a WAL (a private temporary file) by the rules every log is
 * held to (create_revision, version, revisions that advance).
 */
final class EtcdDbVerify {
    private EtcdDbVerify() {
    }

    static VerifyReport verify(Path db, VerifyLevel level, Verifier.Listener l) throws IOException {
        try (EtcdDb e = EtcdDb.openDatabase(db)) {
            long[] c = {0, 0, -1, -1}; // revisions, transactions, first main, last main
            long liveKeys = -1;
            long tombstones = -1;
            List<Finding> findings = new ArrayList<>();
            if (level == VerifyLevel.SEMANTIC) {
                // The WAL form replayed as it is made: no temporary file, no value read back.
                EtcdDbWal.Summary[] sum = {null};
                FormReplay.Result r = FormReplay.run(sink -> sum[0] = EtcdDbWal.emit(e, sink));
                c[0] = sum[0].revisions();
                c[1] = r.transactions();
                c[2] = r.firstRevision();
                c[3] = r.revision();
                liveKeys = r.liveKeys();
                tombstones = r.tombstones();
                for (Finding x : r.findings()) {
                    findings.add(x);
                    l.finding(x);
                }
            } else {
                long[] lastMain = {-1};
                e.revisions((main, sub, tomb, page, kv) -> {
                    c[0]++;
                    if (main != lastMain[0]) c[1]++;
                    if (c[2] < 0) c[2] = main;
                    c[3] = main;
                    lastMain[0] = main;
                });
            }
            List<String> damage = new ArrayList<>();
            for (BoltDamage d : e.damage()) {
                damage.add(d.toString());
                l.storeDamage("etcd-db", d.toString());
            }
            String detail = String.format("bbolt page size %d, txid %d, consistent index %d, %d lease(s)%s", e.bolt().meta().pageSize(),
                    e.bolt().meta().txid(), e.consistentIndex(), e.leases().size(),
                    e.trailer() == EtcdDb.Trailer.SHA256_MATCHES ? ", etcdctl snapshot's SHA-256 matches" : "");
            return new VerifyReport(db, WalFormat.V2, level, e.bolt().size(), c[0], c[1], c[2], c[3],
                    e.compactRevision() > 0 ? e.compactRevision() : -1, liveKeys, tombstones, List.of(), findings, null, -1, false, null,
                    SplitScan.Outcome.ONE_THREAD, "etcd-db", detail, damage);
        }
    }
}
