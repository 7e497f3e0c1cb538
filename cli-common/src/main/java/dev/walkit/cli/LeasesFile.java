package dev.walkit.cli;

import java.util.SortedMap;

/**
 * {@code leases.json}, the lease metadata beside a written {@code wal} (schema walkit.leases/v1): the TTL given
 * to a lease no source said anything of, the next lease ID, and each lease with its TTL and live-key count.
 * walrecover writes it (one conservative TTL: the log keeps none), and walmigrate --out-wal (an etcd db's lease
 * bucket gives each lease's granted TTL, kine's lease is its TTL).
 */
public final class LeasesFile {
    public static final String NAME = "leases.json";

    private LeasesFile() {
    }

    /** {@code leases}: ID → {TTL in seconds, live keys}. */
    public static String json(long defaultTtl, long nextLeaseId, SortedMap<Long, long[]> leases) {
        Json j = new Json().beginObject().field("schema", "walkit.leases/v1").field("ttl_seconds", defaultTtl)
                .field("next_lease_id", nextLeaseId).name("leases").beginArray();
        leases.forEach((id, l) -> j.beginObject().field("id", id).field("ttl_seconds", l[0]).field("keys", l[1]).endObject());
        return j.endArray().endObject() + "\n";
    }
}
