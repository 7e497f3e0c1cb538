package dev.walkit.bench;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;

import java.net.URI;
import java.util.concurrent.CountDownLatch;

/**
 * For scripts/bench-mirror (WALKIT_BENCH_FLOOR=raw): a mirror on grpc-java alone, its callbacks on Netty's threads
 * (direct executors, no client library between), each watch response sent as one transaction from the thread that
 * received it: the least a JVM mirror can cost, to tell the JVM's floor from jetcd's. Not a tool: it never stops.
 * Usage: RawMirror SOURCE PREFIX TARGET
 */
public final class RawMirror {
    private RawMirror() {
    }

    private static ManagedChannel channel(String url) {
        URI u = URI.create(url);
        return NettyChannelBuilder.forAddress(u.getHost(), u.getPort()).usePlaintext().directExecutor().maxInboundMessageSize(256 << 20).build();
    }

    private static ByteString end(ByteString prefix) {
        byte[] b = prefix.toByteArray();
        b[b.length - 1]++;
        return ByteString.copyFrom(b);
    }

    public static void main(String[] a) throws Exception {
        ManagedChannel src = channel(a[0]);
        ManagedChannel dst = channel(a[2]);
        ByteString prefix = ByteString.copyFromUtf8(a[1]);
        RangeResponse all = KVGrpc.newBlockingStub(src).range(RangeRequest.newBuilder().setKey(prefix).setRangeEnd(end(prefix)).build());
        KVGrpc.KVBlockingStub put = KVGrpc.newBlockingStub(dst);
        TxnRequest.Builder t = TxnRequest.newBuilder();
        for (io.etcd.jetcd.api.KeyValue kv : all.getKvsList()) {
            t.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(kv.getKey()).setValue(kv.getValue())));
            if (t.getSuccessCount() == 128) {
                put.txn(t.build());
                t = TxnRequest.newBuilder();
            }
        }
        if (t.getSuccessCount() > 0) put.txn(t.build());
        KVGrpc.KVStub kv = KVGrpc.newStub(dst);
        StreamObserver<TxnResponse> ignore = new StreamObserver<>() {
            @Override
            public void onNext(TxnResponse value) {
            }

            @Override
            public void onError(Throwable e) {
                System.err.println("RawMirror: " + e);
            }

            @Override
            public void onCompleted() {
            }
        };
        CountDownLatch done = new CountDownLatch(1);
        StreamObserver<WatchRequest> w = WatchGrpc.newStub(src).watch(new StreamObserver<>() {
            @Override
            public void onNext(WatchResponse r) {
                if (r.getEventsCount() == 0) return;
                TxnRequest.Builder txn = TxnRequest.newBuilder();
                for (Event e : r.getEventsList()) {
                    txn.addSuccess(e.getType() == Event.EventType.PUT
                            ? RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(e.getKv().getKey()).setValue(e.getKv().getValue())).build()
                            : RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder().setKey(e.getKv().getKey())).build());
                }
                kv.txn(txn.build(), ignore);
            }

            @Override
            public void onError(Throwable e) {
                System.err.println("RawMirror: " + e);
                done.countDown();
            }

            @Override
            public void onCompleted() {
                done.countDown();
            }
        });
        w.onNext(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder().setKey(prefix).setRangeEnd(end(prefix))
                .setStartRevision(all.getHeader().getRevision() + 1)).build());
        done.await();
    }
}
