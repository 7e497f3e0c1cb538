package dev.walkit.bench;

import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalEntry;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * For scripts/bench-stores: a WAL's whole history written into a real etcd, its records in order, up to 128 in
 * one transaction (a key at most once in each, as etcd requires), leases left out (the log's IDs were never
 * granted there). The etcd's db then holds the same history and live state as the WAL.
 * Usage: LoadEtcd ENDPOINT WAL
 */
public final class LoadEtcd {
    private LoadEtcd() {
    }

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        long records = 0;
        long txns = 0;
        try (Client c = Client.builder().endpoints(args[0]).maxInboundMessageSize(64 << 20).build();
             WalFile f = WalFile.open(Path.of(args[1]), ReaderOptions.defaults().maxRecLen())) {
            WalReader r = new WalReader(f, ReaderOptions.defaults());
            List<Op> ops = new ArrayList<>();
            Set<ByteBuffer> keys = new HashSet<>();
            long bytes = 0;
            for (ReadResult x; (x = r.next()) != null; ) {
                if (x instanceof DamageSpan) continue;
                WalEntry e = WalEntry.of((RecordView) x);
                if (e.key().length == 0) continue; // a snapshot marker
                ByteBuffer k = ByteBuffer.wrap(e.key());
                if (ops.size() == 128 || keys.contains(k) || bytes > (1 << 20)) {
                    commit(c, ops);
                    txns++;
                    ops.clear();
                    keys.clear();
                    bytes = 0;
                }
                ByteSequence key = ByteSequence.from(e.key());
                if (e.isDelete()) {
                    ops.add(Op.delete(key, DeleteOption.DEFAULT));
                } else {
                    byte[] v = f.read(e.valueOffset(), e.valueLength());
                    ops.add(Op.put(key, ByteSequence.from(v), PutOption.DEFAULT));
                    bytes += v.length;
                }
                keys.add(k);
                bytes += e.key().length;
                records++;
            }
            if (!ops.isEmpty()) {
                commit(c, ops);
                txns++;
            }
        }
        System.err.printf("LoadEtcd: %,d records in %,d transactions, %.1f s%n", records, txns, (System.nanoTime() - t0) / 1e9);
    }

    private static void commit(Client c, List<Op> ops) throws Exception {
        c.getKVClient().txn().Then(ops.toArray(new Op[0])).commit().get(120, TimeUnit.SECONDS);
    }
}
