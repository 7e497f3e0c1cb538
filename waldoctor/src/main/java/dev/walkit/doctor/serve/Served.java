package dev.walkit.doctor.serve;

import com.google.protobuf.UnsafeByteOperations;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.ResponseHeader;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every service of the endpoint shares: the history it serves, the one member's IDs, the response header,
 * and etcd's errors with etcd's own words (clients match them: etcdctl prints them as etcd's, jetcd maps them).
 */
final class Served {
    final History history;
    final long clusterId;
    final long memberId;
    final String name;
    volatile String clientUrl;
    final AtomicLong requests = new AtomicLong();

    Served(History history, String clientUrl) {
        this.history = history;
        this.clientUrl = clientUrl;
        String path = history.store().path().toAbsolutePath().toString();
        // Stable for one store: the same IDs every time it is served (FNV-1a of its path; never 0, which etcd does not use).
        long h = 0xcbf29ce484222325L;
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) h = (h ^ (b & 0xff)) * 0x100000001b3L;
        this.memberId = h == 0 ? 1 : h & Long.MAX_VALUE;
        this.clusterId = (Long.rotateLeft(h, 17) ^ 0x5bd1e995L) & Long.MAX_VALUE;
        this.name = "walkit-serve";
    }

    ResponseHeader header() {
        return ResponseHeader.newBuilder().setClusterId(clusterId).setMemberId(memberId).setRevision(history.latest()).setRaftTerm(1).build();
    }

    static KeyValue kv(dev.walkit.format.KeyValue kv, boolean value) {
        KeyValue.Builder b = KeyValue.newBuilder().setKey(UnsafeByteOperations.unsafeWrap(kv.key())).setModRevision(kv.modRevision());
        if (kv.isDelete()) return b.build();
        b.setCreateRevision(kv.createRevision()).setVersion(kv.version()).setLease(kv.lease());
        if (value && kv.value() != null) b.setValue(UnsafeByteOperations.unsafeWrap(kv.value()));
        return b.build();
    }

    /** The revision a request names, checked as etcd checks it: 0 (or less) is the served one. */
    long revision(long asked) {
        if (asked <= 0) return history.latest();
        if (asked > history.latest()) throw FUTURE.asRuntimeException();
        if (asked < history.compactRevision()) throw COMPACTED.asRuntimeException();
        return asked;
    }

    // etcd's own statuses and words (etcdserver/api/v3rpc/rpctypes).
    static final Status COMPACTED = Status.OUT_OF_RANGE.withDescription("etcdserver: mvcc: required revision has been compacted");
    static final Status FUTURE = Status.OUT_OF_RANGE.withDescription("etcdserver: mvcc: required revision is a future revision");

    /** What every write gets: never accepted, in words a client shows as they are. */
    static StatusRuntimeException readOnly(String what) {
        return Status.FAILED_PRECONDITION.withDescription("walkit serve is read-only: " + what + " refused, nothing was written (serve a copy "
                + "of the store with walrecover or walmigrate to write)").asRuntimeException();
    }
}
