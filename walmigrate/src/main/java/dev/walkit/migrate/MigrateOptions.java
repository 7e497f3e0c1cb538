package dev.walkit.migrate;

import java.nio.file.Path;
import java.util.List;

/**
 * Where and how to migrate.
 *
 * @param endpoints   etcd client URLs
 * @param prefix      only keys starting with this ("" for all)
 * @param batch       operations per transaction (etcd's --max-txn-ops, 128 by default)
 * @param concurrency transactions in flight
 * @param dryRun      read the source and plan batches; write nothing
 * @param leaseTtl    TTL of leases re-granted for a WAL source's lease IDs
 */
public record MigrateOptions(List<String> endpoints, String prefix, int batch, int concurrency, boolean dryRun, long leaseTtl,
                             Path cacert, Path cert, Path key, String user, Path passwordFile) {
    /** etcd's default request limit is 1.5 MiB; stay under it with room for the request's own framing. */
    public static final int MAX_REQUEST_BYTES = (int) (1.5 * 1024 * 1024) - 64 * 1024;
    /** Bytes a put costs in a request beyond its key and value. */
    static final int PER_OP_OVERHEAD = 96;

    public String validate() {
        if (endpoints == null || endpoints.isEmpty()) return "--endpoints is required";
        if (batch < 1 || batch > 10_000) return "--batch must be between 1 and 10000";
        if (concurrency < 1 || concurrency > 256) return "--concurrency must be between 1 and 256";
        if ((cert == null) != (key == null)) return "--cert and --key go together";
        if ((user == null) != (passwordFile == null)) return "--user and --password-file go together";
        return null;
    }
}
