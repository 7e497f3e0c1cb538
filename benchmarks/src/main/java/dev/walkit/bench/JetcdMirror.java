package dev.walkit.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * For scripts/bench-mirror: the least a mirror on the JVM can be, as a floor for walmigrate's lag: the keys under a
 * prefix copied in transactions of 128, then the source's watch applied a response at a time as one transaction,
 * with jetcd (walmigrate's client), no compare, no marker, no verify. Not a tool: it never stops by itself.
 * Usage: JetcdMirror SOURCE PREFIX TARGET
 */
public final class JetcdMirror {
    private JetcdMirror() {
    }

    public static void main(String[] a) throws Exception {
        try (Client s = Client.builder().endpoints(a[0]).maxInboundMessageSize(256 << 20).build(); Client d = Client.builder().endpoints(a[2]).build()) {
            ByteSequence prefix = ByteSequence.from(a[1], StandardCharsets.UTF_8);
            GetResponse all = s.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build()).get();
            List<CompletableFuture<?>> copies = new ArrayList<>();
            List<Op> ops = new ArrayList<>();
            for (KeyValue kv : all.getKvs()) {
                ops.add(Op.put(kv.getKey(), kv.getValue(), PutOption.DEFAULT));
                if (ops.size() == 128) {
                    copies.add(d.getKVClient().txn().Then(ops.toArray(new Op[0])).commit());
                    ops = new ArrayList<>();
                }
            }
            if (!ops.isEmpty()) copies.add(d.getKVClient().txn().Then(ops.toArray(new Op[0])).commit());
            CompletableFuture.allOf(copies.toArray(CompletableFuture<?>[]::new)).get();
            LinkedBlockingQueue<WatchResponse> q = new LinkedBlockingQueue<>();
            s.getWatchClient().watch(prefix, WatchOption.builder().isPrefix(true).withRevision(all.getHeader().getRevision() + 1).build(), q::add);
            for (;;) {
                List<Op> txn = new ArrayList<>();
                for (WatchEvent e : q.take().getEvents()) {
                    txn.add(e.getEventType() == WatchEvent.EventType.PUT ? Op.put(e.getKeyValue().getKey(), e.getKeyValue().getValue(), PutOption.DEFAULT)
                            : Op.delete(e.getKeyValue().getKey(), DeleteOption.DEFAULT));
                }
                if (!txn.isEmpty()) d.getKVClient().txn().Then(txn.toArray(new Op[0])).commit().get();
            }
        }
    }
}
