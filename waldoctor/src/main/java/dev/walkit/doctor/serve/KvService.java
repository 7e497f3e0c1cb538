package dev.walkit.doctor.serve;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.CompactionRequest;
import io.etcd.jetcd.api.CompactionResponse;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.DeleteRangeResponse;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.ResponseOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * etcd's KV service over the history: Range as etcd 3.4's apply does it (count before the revision filters, sort,
 * then limit and {@code more}), Txn whose compares and operations only read; every write refused.
 */
final class KvService extends KVGrpc.KVImplBase {
    private final Served served;

    KvService(Served served) {
        this.served = served;
    }

    @Override
    public void range(RangeRequest r, StreamObserver<RangeResponse> out) {
        served.requests.incrementAndGet();
        try {
            RangeResponse resp = range(r);
            out.onNext(resp);
            out.onCompleted();
        } catch (StatusRuntimeException e) {
            out.onError(e);
        }
    }

    /** etcd's {@code range_end}: empty is the key alone, "\0" every key from the key on. */
    static byte[] end(ByteString rangeEnd) {
        if (rangeEnd.isEmpty()) return null;
        if (rangeEnd.size() == 1 && rangeEnd.byteAt(0) == 0) return new byte[0];
        return rangeEnd.toByteArray();
    }

    RangeResponse range(RangeRequest r) {
        if (r.getKey().isEmpty()) throw io.grpc.Status.INVALID_ARGUMENT.withDescription("etcdserver: key is not provided").asRuntimeException();
        long rev = served.revision(r.getRevision());
        boolean filtered = r.getMinModRevision() != 0 || r.getMaxModRevision() != 0 || r.getMinCreateRevision() != 0 || r.getMaxCreateRevision() != 0;
        RangeRequest.SortOrder order = r.getSortOrder();
        if (r.getSortTarget() != RangeRequest.SortTarget.KEY && order == RangeRequest.SortOrder.NONE) order = RangeRequest.SortOrder.ASCEND;
        boolean sorted = order != RangeRequest.SortOrder.NONE && !(r.getSortTarget() == RangeRequest.SortTarget.KEY && order == RangeRequest.SortOrder.ASCEND);
        // As etcd 3.4's apply: with a sort order asked for or a filter, everything is fetched, then sorted and cut; else
        // one past the limit (for 'more'), in key order, and those sorted: a sort target with no order (ascending by
        // default) sorts only the first limit + 1 keys.
        boolean fetchAll = r.getSortOrder() != RangeRequest.SortOrder.NONE || filtered;
        long materialize = r.getCountOnly() ? 0 : r.getLimit() > 0 && !fetchAll ? r.getLimit() + 1 : Long.MAX_VALUE;
        List<dev.walkit.format.KeyValue> kvs = new ArrayList<>();
        // Keys only, unsorted by value: no value is read out (etcd's keys_only answers carry none).
        boolean values = !r.getKeysOnly() || r.getSortTarget() == RangeRequest.SortTarget.VALUE;
        long count = served.history.range(r.getKey().toByteArray(), end(r.getRangeEnd()), rev, materialize, values, kv -> kvs.add(kv));
        if (filtered) {
            kvs.removeIf(kv -> (r.getMaxModRevision() != 0 && kv.modRevision() > r.getMaxModRevision())
                    || (r.getMinModRevision() != 0 && kv.modRevision() < r.getMinModRevision())
                    || (r.getMaxCreateRevision() != 0 && kv.createRevision() > r.getMaxCreateRevision())
                    || (r.getMinCreateRevision() != 0 && kv.createRevision() < r.getMinCreateRevision()));
        }
        if (sorted) {
            Comparator<dev.walkit.format.KeyValue> c = switch (r.getSortTarget()) {
                case VERSION -> Comparator.comparingLong(dev.walkit.format.KeyValue::version);
                case CREATE -> Comparator.comparingLong(dev.walkit.format.KeyValue::createRevision);
                case MOD -> Comparator.comparingLong(dev.walkit.format.KeyValue::modRevision);
                case VALUE -> (a, b) -> Arrays.compareUnsigned(a.value(), b.value());
                default -> (a, b) -> Arrays.compareUnsigned(a.key(), b.key());
            };
            kvs.sort(c);
            if (order == RangeRequest.SortOrder.DESCEND) Collections.reverse(kvs);
        }
        RangeResponse.Builder b = RangeResponse.newBuilder().setHeader(served.header()).setCount(count);
        int n = kvs.size();
        if (r.getLimit() > 0 && n > r.getLimit()) {
            n = (int) r.getLimit();
            b.setMore(true);
        }
        for (int i = 0; i < n; i++) b.addKvs(Served.kv(kvs.get(i), !r.getKeysOnly()));
        return b.build();
    }

    @Override
    public void txn(TxnRequest t, StreamObserver<TxnResponse> out) {
        served.requests.incrementAndGet();
        try {
            if (writes(t)) throw Served.readOnly("a transaction that writes");
            out.onNext(txn(t));
            out.onCompleted();
        } catch (StatusRuntimeException e) {
            out.onError(e);
        }
    }

    /** Whether any operation of either branch (nested ones too) writes: etcd checks both branches too. */
    static boolean writes(TxnRequest t) {
        for (List<RequestOp> ops : List.of(t.getSuccessList(), t.getFailureList())) {
            for (RequestOp op : ops) {
                switch (op.getRequestCase()) {
                    case REQUEST_RANGE, REQUEST_NOT_SET -> {
                    }
                    case REQUEST_TXN -> {
                        if (writes(op.getRequestTxn())) return true;
                    }
                    default -> {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private TxnResponse txn(TxnRequest t) {
        for (Compare c : t.getCompareList()) { // as etcd checks a transaction before it runs
            if (c.getKey().isEmpty()) throw io.grpc.Status.INVALID_ARGUMENT.withDescription("etcdserver: key is not provided").asRuntimeException();
        }
        boolean ok = true;
        for (Compare c : t.getCompareList()) {
            if (!holds(c)) {
                ok = false;
                break;
            }
        }
        TxnResponse.Builder b = TxnResponse.newBuilder().setHeader(served.header()).setSucceeded(ok);
        for (RequestOp op : ok ? t.getSuccessList() : t.getFailureList()) {
            switch (op.getRequestCase()) {
                case REQUEST_RANGE -> b.addResponses(ResponseOp.newBuilder().setResponseRange(range(op.getRequestRange())));
                case REQUEST_TXN -> b.addResponses(ResponseOp.newBuilder().setResponseTxn(txn(op.getRequestTxn())));
                default -> {
                }
            }
        }
        return b.build();
    }

    /** etcd's applyCompare at the served revision: every key of the compare's range must pass; a value compare of no key fails. */
    private boolean holds(Compare c) {
        List<dev.walkit.format.KeyValue> kvs = new ArrayList<>();
        served.history.range(c.getKey().toByteArray(), end(c.getRangeEnd()), served.history.latest(), Long.MAX_VALUE, true, kv -> kvs.add(kv));
        if (kvs.isEmpty()) {
            if (c.getTarget() == Compare.CompareTarget.VALUE) return false;
            return passes(c, dev.walkit.format.KeyValue.put(c.getKey().toByteArray(), 0, 0, 0, new byte[0], 0));
        }
        for (dev.walkit.format.KeyValue kv : kvs) {
            if (!passes(c, kv)) return false;
        }
        return true;
    }

    /** Compare's LEASE target (4) and its field (8): in etcd 3.4's proto, not in jetcd's. */
    private static final int LEASE_TARGET = 4;
    private static final int LEASE_FIELD = 8;

    private static boolean passes(Compare c, dev.walkit.format.KeyValue kv) {
        int r;
        if (c.getTargetValue() == LEASE_TARGET) {
            List<Long> v = c.getUnknownFields().getField(LEASE_FIELD).getVarintList();
            r = Long.compare(kv.lease(), v.isEmpty() ? 0 : v.get(0));
        } else {
            r = switch (c.getTarget()) {
                case VALUE -> Integer.signum(Arrays.compareUnsigned(kv.value() == null ? new byte[0] : kv.value(), c.getValue().toByteArray()));
                case CREATE -> Long.compare(kv.createRevision(), c.getCreateRevision());
                case MOD -> Long.compare(kv.modRevision(), c.getModRevision());
                case VERSION -> Long.compare(kv.version(), c.getVersion());
                default -> throw io.grpc.Status.INVALID_ARGUMENT.withDescription("etcdserver: unknown compare target").asRuntimeException();
            };
        }
        return switch (c.getResult()) {
            case EQUAL -> r == 0;
            case NOT_EQUAL -> r != 0;
            case GREATER -> r > 0;
            case LESS -> r < 0;
            default -> false;
        };
    }

    @Override
    public void put(PutRequest request, StreamObserver<PutResponse> out) {
        out.onError(Served.readOnly("put"));
    }

    @Override
    public void deleteRange(DeleteRangeRequest request, StreamObserver<DeleteRangeResponse> out) {
        out.onError(Served.readOnly("delete"));
    }

    @Override
    public void compact(CompactionRequest request, StreamObserver<CompactionResponse> out) {
        out.onError(Served.readOnly("compaction"));
    }

}
