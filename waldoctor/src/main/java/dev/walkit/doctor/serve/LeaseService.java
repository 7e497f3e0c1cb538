package dev.walkit.doctor.serve;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrantResponse;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.api.LeaseRevokeRequest;
import io.etcd.jetcd.api.LeaseRevokeResponse;
import io.etcd.jetcd.api.LeaseTimeToLiveRequest;
import io.etcd.jetcd.api.LeaseTimeToLiveResponse;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * etcd's Lease service over the store's leases ({@link History#leases()}): TimeToLive (a store at rest counts no
 * time down: the TTL left is the TTL granted, as etcd gives every lease again when it starts) and LeaseLeases, which
 * etcd 3.4 has and jetcd's protos do not (so it is bound here, its two small messages written by hand). Grant,
 * revoke and keep-alive are writes: refused.
 */
final class LeaseService extends LeaseGrpc.LeaseImplBase {
    private final Served served;

    LeaseService(Served served) {
        this.served = served;
    }

    @Override
    public void leaseTimeToLive(LeaseTimeToLiveRequest r, StreamObserver<LeaseTimeToLiveResponse> out) {
        served.requests.incrementAndGet();
        dev.walkit.format.pass.StoreHistory.Lease l = served.history.leases().get(r.getID());
        LeaseTimeToLiveResponse.Builder b = LeaseTimeToLiveResponse.newBuilder().setHeader(served.header()).setID(r.getID());
        if (l == null) {
            b.setTTL(-1); // etcd: a lease it does not have
        } else {
            b.setTTL(l.grantedTtl()).setGrantedTTL(l.grantedTtl());
            if (r.getKeys()) for (byte[] k : l.keys()) b.addKeys(UnsafeByteOperations.unsafeWrap(k));
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void leaseGrant(LeaseGrantRequest r, StreamObserver<LeaseGrantResponse> out) {
        out.onError(Served.readOnly("lease grant"));
    }

    @Override
    public void leaseRevoke(LeaseRevokeRequest r, StreamObserver<LeaseRevokeResponse> out) {
        out.onError(Served.readOnly("lease revoke"));
    }

    @Override
    public StreamObserver<LeaseKeepAliveRequest> leaseKeepAlive(StreamObserver<LeaseKeepAliveResponse> out) {
        return new StreamObserver<>() {
            @Override
            public void onNext(LeaseKeepAliveRequest value) {
                out.onError(Served.readOnly("lease keep-alive"));
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
            }
        };
    }

    /** The service with LeaseLeases bound beside jetcd's methods. */
    ServerServiceDefinition definition() {
        ServerServiceDefinition base = bindService();
        String service = base.getServiceDescriptor().getName();
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service);
        for (ServerMethodDefinition<?, ?> m : base.getMethods()) b.addMethod(m);
        MethodDescriptor<byte[], byte[]> leases = MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, "LeaseLeases"))
                .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
        b.addMethod(leases, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> out) -> {
            served.requests.incrementAndGet();
            out.onNext(leaseLeasesResponse());
            out.onCompleted();
        }));
        return b.build();
    }

    /** LeaseLeasesResponse { ResponseHeader header = 1; repeated LeaseStatus leases = 2; }, LeaseStatus { int64 ID = 1; }. */
    private byte[] leaseLeasesResponse() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream o = CodedOutputStream.newInstance(bytes);
            o.writeMessage(1, served.header());
            for (long id : served.history.leases().keySet()) {
                o.writeTag(2, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
                o.writeUInt32NoTag(CodedOutputStream.computeInt64Size(1, id));
                o.writeInt64(1, id);
            }
            o.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
}
