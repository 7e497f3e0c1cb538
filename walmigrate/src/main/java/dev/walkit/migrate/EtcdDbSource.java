package dev.walkit.migrate;

import dev.walkit.format.Wal;
import dev.walkit.format.etcd.EtcdDb;
import dev.walkit.format.etcd.EtcdDbWal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The live keys of an etcd db (a stopped member's {@code member/snap/db}, its data directory, or {@code etcdctl
 * snapshot save} output), read from bbolt's format: its history written as a WAL to a private temporary file and
 * replayed ({@link WalSource}), the leases granted at the TTLs of the db's lease bucket. A damaged db is refused,
 * as a damaged WAL is: waldoctor diagnose lists its damage.
 */
public final class EtcdDbSource implements KeySource {
    private final WalSource wal;
    private final Path tmp;
    private final Map<Long, Long> ttls;
    private final String describe;

    private EtcdDbSource(WalSource wal, Path tmp, Map<Long, Long> ttls, Path db) {
        this.wal = wal;
        this.tmp = tmp;
        this.ttls = ttls;
        this.describe = "etcd db " + db;
    }

    public static EtcdDbSource open(Path path) throws IOException {
        return open(path, false);
    }

    /** As above; {@code pastDamage}: a damaged db's revisions as the salvage past its tree reads them (--policy salvage). */
    public static EtcdDbSource open(Path path, boolean pastDamage) throws IOException {
        dev.walkit.format.pass.Pass.Input store = dev.walkit.format.pass.Pass.input(path);
        if (store.kind() != dev.walkit.format.account.Store.Kind.ETCD_DB) throw new IOException(path + ": not an etcd db (no bbolt meta page at its start)");
        Path tmp = Files.createTempDirectory("walkit-etcd-db-");
        Path walFile = tmp.resolve(Wal.WAL_FILE);
        try (EtcdDb db = EtcdDb.openDatabase(store.file())) {
            EtcdDbWal.write(db, walFile); // (a tree that is not the whole answer: read again past it, as every tool reads it)
            if (!pastDamage && !db.damage().isEmpty()) {
                throw new IOException(store.file() + ": the etcd db is damaged (" + db.damage().get(0) + (db.damage().size() > 1
                        ? "; " + (db.damage().size() - 1) + " more" : "") + "): run waldoctor diagnose first");
            }
            return new EtcdDbSource(WalSource.open(walFile), tmp, Map.copyOf(db.leases()), store.file());
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(walFile);
            Files.deleteIfExists(tmp);
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
            Files.deleteIfExists(tmp.resolve(Wal.WAL_FILE));
            Files.deleteIfExists(tmp);
        }
    }
}
