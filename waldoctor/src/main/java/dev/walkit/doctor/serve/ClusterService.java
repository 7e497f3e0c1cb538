package dev.walkit.doctor.serve;

import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.MemberAddRequest;
import io.etcd.jetcd.api.MemberAddResponse;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.MemberRemoveRequest;
import io.etcd.jetcd.api.MemberRemoveResponse;
import io.etcd.jetcd.api.MemberUpdateRequest;
import io.etcd.jetcd.api.MemberUpdateResponse;
import io.grpc.stub.StreamObserver;

/** etcd's Cluster: one member (this endpoint, no peers); membership changes are refused. */
final class ClusterService extends ClusterGrpc.ClusterImplBase {
    private final Served served;

    ClusterService(Served served) {
        this.served = served;
    }

    @Override
    public void memberList(MemberListRequest r, StreamObserver<MemberListResponse> out) {
        served.requests.incrementAndGet();
        Member m = Member.newBuilder().setID(served.memberId).setName(served.name).addClientURLs(served.clientUrl).build();
        out.onNext(MemberListResponse.newBuilder().setHeader(served.header()).addMembers(m).build());
        out.onCompleted();
    }

    @Override
    public void memberAdd(MemberAddRequest r, StreamObserver<MemberAddResponse> out) {
        out.onError(Served.readOnly("member add"));
    }

    @Override
    public void memberRemove(MemberRemoveRequest r, StreamObserver<MemberRemoveResponse> out) {
        out.onError(Served.readOnly("member remove"));
    }

    @Override
    public void memberUpdate(MemberUpdateRequest r, StreamObserver<MemberUpdateResponse> out) {
        out.onError(Served.readOnly("member update"));
    }
}
