package dev.walkit.doctor.serve;

import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.DefragmentRequest;
import io.etcd.jetcd.api.DefragmentResponse;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MoveLeaderRequest;
import io.etcd.jetcd.api.MoveLeaderResponse;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.stub.StreamObserver;

/**
 * etcd's Maintenance: Status (so that {@code etcdctl endpoint status} works: one member, its own leader, the served
 * revision as the raft index, the store's size) and an empty alarm list; defragment and move-leader are refused.
 */
final class MaintenanceService extends MaintenanceGrpc.MaintenanceImplBase {
    /** The API version clients see (etcd 3.4's), with what is served after it. */
    static final String VERSION = "3.4.0";

    private final Served served;

    MaintenanceService(Served served) {
        this.served = served;
    }

    @Override
    public void status(StatusRequest r, StreamObserver<StatusResponse> out) {
        served.requests.incrementAndGet();
        long latest = served.history.latest();
        // etcd 3.4's raftAppliedIndex (7) and dbSizeInUse (9), which jetcd's proto does not have.
        UnknownFieldSet extra = UnknownFieldSet.newBuilder()
                .addField(7, UnknownFieldSet.Field.newBuilder().addVarint(latest).build())
                .addField(9, UnknownFieldSet.Field.newBuilder().addVarint(served.history.store().bytes()).build()).build();
        out.onNext(StatusResponse.newBuilder().setHeader(served.header()).setVersion(VERSION).setDbSize(served.history.store().bytes())
                .setLeader(served.memberId).setRaftIndex(latest).setRaftTerm(1).setUnknownFields(extra).build());
        out.onCompleted();
    }

    @Override
    public void alarm(AlarmRequest r, StreamObserver<AlarmResponse> out) {
        if (r.getAction() != AlarmRequest.AlarmAction.GET) {
            out.onError(Served.readOnly("alarm " + r.getAction().name().toLowerCase(java.util.Locale.ROOT)));
            return;
        }
        out.onNext(AlarmResponse.newBuilder().setHeader(served.header()).build());
        out.onCompleted();
    }

    @Override
    public void defragment(DefragmentRequest r, StreamObserver<DefragmentResponse> out) {
        out.onError(Served.readOnly("defragment"));
    }

    @Override
    public void moveLeader(MoveLeaderRequest r, StreamObserver<MoveLeaderResponse> out) {
        out.onError(Served.readOnly("move-leader"));
    }
}
