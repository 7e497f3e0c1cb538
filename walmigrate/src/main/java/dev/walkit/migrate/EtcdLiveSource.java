package dev.walkit.migrate;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A live etcd's keys as a source ({@code walmigrate etcd --source-endpoints …}): read at one consistent revision
 * (the first answer's), a page at a time in key order ({@link Comparison.TargetScan} with that revision), so a
 * cluster that keeps changing is copied as it stood then; each lease granted in the target with the TTL the
 * source granted it ({@code lease timetolive}). Nothing is written to the source. A compaction past that
 * revision during the read stops the job (run it again).
 */
public final class EtcdLiveSource implements KeySource {
    private final Client client;
    private final Comparison.TargetScan scan;
    private final long revision;
    private final String describe;
    private final Map<Long, Long> ttls = new HashMap<>();
    /** Whether closing this closes the client (a follow's state reads share the follow's). */
    private final boolean ownsClient;

    private EtcdLiveSource(Client client, long revision, String describe, byte[] prefix) {
        this(client, revision, describe, prefix, true);
    }

    private EtcdLiveSource(Client client, long revision, String describe, byte[] prefix, boolean ownsClient) {
        this.ownsClient = ownsClient;
        this.client = client;
        this.revision = revision;
        this.describe = describe;
        this.scan = new Comparison.TargetScan(client, prefix, revision);
    }

    /** A plain-http source. */
    public static EtcdLiveSource open(List<String> endpoints, String prefix) throws IOException {
        return open(new MigrateOptions(endpoints, prefix, 128, 1, true, 3600, null, null, null, null, null));
    }

    /** The source named by {@code o}'s endpoints, prefix, TLS and auth (as a target's are), at its latest revision. */
    public static EtcdLiveSource open(MigrateOptions o) throws IOException {
        return open(o, 0);
    }

    /** As above, at {@code revision} (0: the latest): several reads of one moment of the source (the shards of --route). */
    public static EtcdLiveSource open(MigrateOptions o, long revision) throws IOException {
        List<String> endpoints = o.endpoints();
        String prefix = o.prefix();
        Client c = EtcdClients.build(o);
        try {
            EtcdClients.checkReachable(c, o);
            long rev = revision > 0 ? revision : c.getKVClient().get(EtcdClients.probe(prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8)), GetOption.builder().withCountOnly(true).build())
                    .get(60, TimeUnit.SECONDS).getHeader().getRevision();
            return new EtcdLiveSource(c, rev, "etcd " + String.join(",", endpoints) + " at revision " + rev,
                    prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            c.close();
            throw e;
        } catch (Exception e) {
            c.close();
            throw new IOException("reading the source etcd failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean hasNext() {
        try {
            return scan.hasNext();
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).contains("compacted")) {
                throw new IllegalStateException("the source etcd compacted past revision " + revision + " while it was read: run the job again", e);
            }
            throw e;
        }
    }

    @Override
    public SourceKey next() {
        KeyValue kv = scan.next();
        return new SourceKey(kv.getKey().getBytes(), kv.getValue().getBytes(), kv.getCreateRevision(), kv.getModRevision(), kv.getVersion(), kv.getLease());
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public long revision() {
        return revision;
    }

    @Override
    public boolean leaseIsTtl() {
        return false;
    }

    /** The TTL the source granted the lease (asked once per lease); a lease gone since the read gets {@code fallback}. */
    @Override
    public synchronized long ttlOf(long lease, long fallback) {
        return ttls.computeIfAbsent(lease, id -> {
            try {
                long t = client.getLeaseClient().timeToLive(id, LeaseOption.DEFAULT).get(30, TimeUnit.SECONDS).getGrantedTTL();
                return t > 0 ? t : fallback;
            } catch (Exception e) {
                return fallback;
            }
        });
    }

    /** The keys under {@code prefix} at {@code revision}, read on {@code client}, which stays open when this closes. */
    static EtcdLiveSource at(Client client, long revision, String describe, byte[] prefix) {
        return new EtcdLiveSource(client, revision, describe, prefix, false);
    }

    @Override
    public void close() {
        if (ownsClient) client.close();
    }
}
