package dev.walkit.migrate;

import java.net.URI;
import java.net.URISyntaxException;
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

    /** Endpoints written as etcdctl takes them, {@code HOST:PORT}, get the scheme: https with TLS options, else http. */
    public MigrateOptions {
        if (endpoints != null) {
            boolean tls = cacert != null || cert != null;
            endpoints = endpoints.stream().map(String::strip).map(e -> e.contains("://") ? e : (tls ? "https://" : "http://") + e).toList();
        }
    }

    public String validate() {
        if (endpoints == null || endpoints.isEmpty()) return "--endpoints is required";
        for (String e : endpoints) {
            String bad = "--endpoints: '" + e + "' is not an etcd client URL (HOST:PORT, http://HOST:PORT or https://HOST:PORT)";
            try {
                URI u = new URI(e);
                if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null || u.getPort() < 0) return bad;
            } catch (URISyntaxException x) {
                return bad;
            }
        }
        if (batch < 1 || batch > 10_000) return "--batch must be between 1 and 10000";
        if (concurrency < 1 || concurrency > 256) return "--concurrency must be between 1 and 256";
        if ((cert == null) != (key == null)) return "--cert and --key go together";
        if ((user == null) != (passwordFile == null)) return "--user and --password-file go together";
        return null;
    }
}
