package dev.walkit.migrate;

import dev.walkit.format.pass.Pass;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The live keys of an etcd db (a stopped member's {@code member/snap/db}, its data directory, or {@code etcdctl
 * snapshot save} output), read as the pass reads it ({@link Pass#form}: its history as a WAL form in a private
 * temporary file, the salvage past a damaged tree included), replayed ({@link WalSource}), the leases granted at the
 * TTLs of the db's lease bucket. A damaged db is refused,
 * as a damaged WAL is: waldoctor diagnose lists its damage.
 */
public final class EtcdDbSource implements KeySource {
    private final WalSource wal;
    private final Pass.Form form;
    private final Map<Long, Long> ttls;
    private final String describe;

    private EtcdDbSource(WalSource wal, Pass.Form form, Map<Long, Long> ttls, Path db) {
        this.wal = wal;
        this.form = form;
        this.ttls = ttls;
        this.describe = "etcd db " + db;
    }

    public static EtcdDbSource open(Path path) throws IOException {
        return open(path, false);
    }

    /** As above; {@code pastDamage}: a damaged db's revisions as the salvage past its tree reads them (--policy salvage). */
    public static EtcdDbSource open(Path path, boolean pastDamage) throws IOException {
        Pass.Input store = Pass.input(path);
        if (store.kind() != dev.walkit.format.account.Store.Kind.ETCD_DB) throw new IOException(path + ": not an etcd db (no bbolt meta page at its start)");
        Pass.Form form = Pass.form(store.file());
        try {
            java.util.List<String> damage = form.store().damage();
            if (!pastDamage && !damage.isEmpty()) {
                throw new IOException(store.file() + ": the etcd db is damaged (" + damage.get(0) + (damage.size() > 1
                        ? "; " + (damage.size() - 1) + " more" : "") + "): run waldoctor diagnose first");
            }
            return new EtcdDbSource(WalSource.open(form.wal()), form, form.leaseTtls(), store.file());
        } catch (IOException | RuntimeException e) {
            form.close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return wal.hasNext();
    }

    @Override
    public SourceKey next() {
        return wal.next();
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public long revision() {
        return wal.revision();
    }

    @Override
    public boolean leaseIsTtl() {
        return false;
    }

    /** The lease's TTL as granted in the source etcd; a lease the bucket lacks (revoked under a live key?) gets {@code fallback}. */
    @Override
    public long ttlOf(long lease, long fallback) {
        Long t = ttls.get(lease);
        return t == null || t <= 0 ? fallback : t;
    }

    @Override
    public void close() throws IOException {
        try {
            wal.close();
        } finally {
            form.close();
        }
    }
}
