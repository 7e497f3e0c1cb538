package dev.walkit.format.etcd;

import dev.walkit.format.KvDecoder;
import dev.walkit.format.KvFields;
import dev.walkit.format.NotAWalException;
import dev.walkit.format.Varints;
import dev.walkit.format.bbolt.BoltDamage;
import dev.walkit.format.bbolt.BoltFile;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * etcd's backend database (a member's {@code member/snap/db}, or {@code etcdctl snapshot save} output), read
 * from the format over {@link BoltFile}: the {@code key} bucket (a revision key, 8-byte big-endian main,
 * {@code _}, 8-byte big-endian sub, and {@code t} for a tombstone; the value an mvccpb.KeyValue), the
 * {@code meta} bucket (finishedCompactRev, scheduledCompactRev as revision keys; consistent_index), and the
 * {@code lease} bucket (the 8-byte big-endian ID; a leasepb.Lease: ID, TTL). What does not parse is damage,
 * kept with the rest.
 */
public final class EtcdDb implements Closeable {
    /** One revision of the key bucket: its value is in {@code page} as {@code kv} says, valid during the call. */
    public interface RevisionVisitor {
        void revision(long main, long sub, boolean tombstone, ByteBuffer page, KvFields kv);
    }

    private static final int REV_BYTES = 17;

    private final BoltFile bolt;
    private final List<BoltDamage> damage = new ArrayList<>();
    private long compactRevision;
    private long scheduledCompactRevision;
    private long consistentIndex = -1;
    private final Map<Long, Long> leases = new TreeMap<>();

    /** What the 32 bytes past the last page say: {@code etcdctl snapshot save} appends the SHA-256 of the db. */
    public enum Trailer {
        /** The file ends at a page boundary: a member's db. */
        NONE,
        /** A SHA-256 of the pages before it, and it matches: the snapshot is as etcd sent it. */
        SHA256_MATCHES,
        /** 32 bytes that are not the SHA-256 of the pages before them: the file changed since it was saved. */
        SHA256_DIFFERS,
        /** Neither: the file ends neither at a page boundary nor 32 bytes past one (it was cut, or appended to). */
        NOT_WHOLE
    }

    /** The trailer's check, a SHA-256 of the whole file, runs on a thread of its own beside the reading (1.5 s of 1.3 GB). */
    private final java.util.concurrent.CompletableFuture<Trailer> trailer;

    private EtcdDb(BoltFile bolt) throws IOException {
        this.bolt = bolt;
        this.trailer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return trailer(bolt);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, r -> {
            Thread t = new Thread(r, "etcd-db-sha256");
            t.setDaemon(true);
            t.start();
        });
        if (bolt.meta() == null) chooseRoot();
        BoltFile.BucketRef meta = bolt.bucket("meta");
        if (meta != null) {
            bolt.walk(meta, (p, k, kl, v, vl, bucket) -> {
                String name = ascii(p, k, kl);
                if ((name.equals("finishedCompactRev") || name.equals("scheduledCompactRev")) && vl >= REV_BYTES) {
                    long rev = bigEndian(p, v);
                    if (name.equals("finishedCompactRev")) compactRevision = rev;
                    else scheduledCompactRevision = rev;
                } else if (name.equals("consistent_index") && vl == 8) {
                    consistentIndex = bigEndian(p, v);
                }
            });
        }
        BoltFile.BucketRef lease = bolt.bucket("lease");
        if (lease != null) {
            long[] out = new long[1];
            bolt.walk(lease, (p, k, kl, v, vl, bucket) -> {
                if (kl != 8) {
                    damage.add(new BoltDamage(-1, -1, "lease bucket: a key of " + kl + " bytes, not a lease ID's 8"));
                    return;
                }
                long id = bigEndian(p, k);
                long ttl = -1;
                int i = v;
                int end = v + vl;
                while (i < end) {
                    i = Varints.readVarint(p, i, end, out);
                    if (i < 0) break;
                    int field = (int) (out[0] >>> 3);
                    int wire = (int) (out[0] & 7);
                    if (wire != 0) break;
                    i = Varints.readVarint(p, i, end, out);
                    if (i < 0) break;
                    if (field == 2) ttl = out[0];
                }
                if (i < 0) damage.add(new BoltDamage(-1, -1, "lease " + id + ": its value is not a leasepb.Lease"));
                leases.put(id, ttl);
            });
        }
    }

    /**
     * With no valid meta (both damaged), the tree is still in the file: of the pages that may be the root bucket's (each
     * commit writes it anew), the one whose key bucket reads whole to the newest revision is taken, as a meta would name
     * it; the choice is damage, said as such.
     */
    private void chooseRoot() throws IOException {
        long best = -1;
        long bestLast = -1;
        List<Long> candidates = bolt.rootCandidates("key");
        for (long root : candidates) {
            BoltFile.Mark m = bolt.mark();
            bolt.readFrom(root);
            long[] last = {-1};
            boolean whole;
            BoltFile.BucketRef key = bolt.bucket("key");
            if (key != null) bolt.walk(key, (p, k, kl, v, vl, bucket) -> {
                if (revisionKey(p, k, kl)) last[0] = Math.max(last[0], bigEndian(p, k));
            });
            whole = key != null && bolt.damage().size() == m.damage() && bolt.lostRanges().size() == m.lost();
            bolt.restore(m);
            if (whole && last[0] > bestLast) {
                best = root;
                bestLast = last[0];
            }
        }
        if (best < 0) return; // nothing but a salvage of every page
        bolt.readFrom(best);
        damage.add(new BoltDamage(best, best * bolt.pageSize(), String.format("no valid meta page: the tree is read from page %d, of the %d page(s) "
                + "that may be the root bucket's the one whose key bucket reads whole to the newest revision (%d)", best, candidates.size(), bestLast)));
    }

    private static Trailer trailer(BoltFile bolt) throws IOException {
        if (bolt.meta() == null) return Trailer.NONE;
        long past = bolt.size() % bolt.pageSize();
        if (past == 0) return Trailer.NONE;
        if (past != 32) return Trailer.NOT_WHOLE;
        long pages = bolt.size() - 32;
        java.security.MessageDigest sha;
        try {
            sha = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] stored = new byte[32];
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(bolt.path())) {
            // A direct buffer (read into a heap one, each read went through a second copy) of the windows' size (BoltFile.WINDOW: why).
            ByteBuffer b = ByteBuffer.allocateDirect(BoltFile.WINDOW);
            long at = 0;
            while (at < pages) {
                b.clear().limit((int) Math.min(b.capacity(), pages - at));
                int n = c.read(b, at);
                if (n < 0) return Trailer.NONE;
                b.flip();
                sha.update(b);
                at += n;
            }
            ByteBuffer t = ByteBuffer.wrap(stored);
            while (t.hasRemaining() && c.read(t, pages + t.position()) > 0) {
                // read on
            }
        }
        return java.security.MessageDigest.isEqual(sha.digest(), stored) ? Trailer.SHA256_MATCHES : Trailer.SHA256_DIFFERS;
    }

    /** What etcdctl's trailer says (waits for its check). */
    public Trailer trailer() throws IOException {
        try {
            return trailer.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof java.io.UncheckedIOException u) throw u.getCause();
            throw e;
        }
    }

    /** etcd's integers in keys are big-endian; bbolt's pages are read little-endian. */
    private static long bigEndian(ByteBuffer littleEndian, int at) {
        return Long.reverseBytes(littleEndian.getLong(at));
    }

    private static String ascii(ByteBuffer p, int at, int len) {
        byte[] b = new byte[len];
        p.get(at, b);
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * Opens {@code path} as a database to read: a bbolt file with no valid meta page has no root to read from,
     * and is refused as not a database ({@link NotAWalException}: exit 4, as any input that is not one).
     * {@link #open} gives such a file too, for the forensic tests of its metas.
     */
    public static EtcdDb openDatabase(Path path) throws IOException {
        EtcdDb db = open(path);
        if (db.bolt.rootPage() < 0 && !db.hasRevisionPages()) {
            String why = db.bolt.damage().isEmpty() ? "" : " (" + db.bolt.damage().get(0).detail() + ")";
            db.close();
            throw new NotAWalException(path + ": a bbolt file with no valid meta page and no page of etcd's revisions" + why);
        }
        return db;
    }

    /** Whether some page of the file is a leaf of etcd's key bucket (what a db with no valid meta is salvaged from). */
    private boolean hasRevisionPages() throws IOException {
        boolean[] any = {false};
        bolt.scanPastTree((p, n) -> {
            if (!any[0] && revisionPage(p, n)) any[0] = true;
            return false;
        }, (p, k, kl, v, vl, b) -> { });
        return any[0];
    }

    public static EtcdDb open(Path path) throws IOException {
        BoltFile b = BoltFile.open(path);
        try {
            return new EtcdDb(b);
        } catch (IOException | RuntimeException e) {
            b.close();
            throw e;
        }
    }

    /**
     * Every revision of the key bucket, in revision order (the bucket's key order). When the tree cannot be taken whole
     * (no valid meta; a page of it could not be read; revisions newer than its last in pages it does not reach),
     * {@link #readAgain} says so after this read, and the next read is the salvage past the tree ({@link #salvaged}).
     */
    public void revisions(RevisionVisitor given) throws IOException {
        if (salvage || bolt.rootPage() < 0) {
            salvage = true;
            salvaged(given);
            return;
        }
        int lostBefore = bolt.lostRanges().size();
        long[] treeLast = {-1};
        RevisionVisitor visitor = (main, sub, tombstone, page, kv) -> {
            treeLast[0] = main;
            given.revision(main, sub, tombstone, page, kv);
        };
        BoltFile.BucketRef key = bolt.bucket("key");
        if (key == null) {
            if (bolt.meta() != null) damage.add(new BoltDamage(-1, -1, "no 'key' bucket: not an etcd v3 database, or its root page is damaged"));
            if (hasRevisionPages()) {
                salvage = true;
                readAgain = true;
            }
            return;
        }
        KvDecoder dec = new KvDecoder();
        KvFields kv = new KvFields();
        ValueChecker values = checkValues ? new ValueChecker() : null;
        bolt.walk(key, (p, k, kl, v, vl, bucket) -> {
            if (bucket || (kl != REV_BYTES && kl != REV_BYTES + 1) || p.get(k + 8) != '_' || (kl == REV_BYTES + 1 && p.get(k + REV_BYTES) != 't')) {
                damage.add(new BoltDamage(-1, -1, "key bucket: a key of " + kl + " bytes that is not a revision"));
                return;
            }
            long main = bigEndian(p, k);
            long sub = bigEndian(p, k + 9);
            if (!dec.decode(p, v, vl, kv) || !kv.hasKey()) {
                damage.add(new BoltDamage(-1, -1, "revision " + main + "." + sub + ": the value is not an mvccpb.KeyValue"
                        + (kv.error() != null ? " (" + kv.error() + ")" : " (no key)")));
                return;
            }
            // The value's own check, where bbolt keeps no page checksum: its mod_revision is its revision key's, and
            // no page it spans is all zeros (a lost block: etcd would serve those zeros as the value).
            // (A tombstone's KeyValue holds its key only: etcd's delete writes no revisions into it.)
            boolean tombstone = kl == REV_BYTES + 1;
            boolean named = false; // one line for one damaged value
            if (tombstone ? kv.modRevision() != 0 && kv.modRevision() != main : kv.modRevision() != main) {
                long pid = p.getLong(0);
                damage.add(new BoltDamage(pid, pid * bolt.pageSize(), "revision " + main + "." + sub + " (key " + quote(kv.key(p))
                        + "): its KeyValue says mod_revision " + kv.modRevision()));
                named = true;
            } else if (vl > 2 * bolt.pageSize()) {
                named = zeroPages(p, v, vl, main, sub, kv);
            }
            if (values != null && !named && !tombstone && kv.valueLength() > 0) {
                long pid = p.getLong(0);
                values.check(pid, pid * bolt.pageSize(), main, sub, kv.key(p), kv.value(p));
            }
            visitor.revision(main, sub, tombstone, p, kv);
        });
        if (values != null) {
            damage.addAll(values.damage());
            values.close();
        }
        // The tree read whole, or not: a page of it lost, or a commit past it (newer revisions in pages it does not reach).
        if (bolt.lostRanges().size() > lostBefore || pastTree(treeLast[0]) > 0) {
            salvage = true;
            readAgain = true;
        }
    }

    private boolean salvage;
    private boolean readAgain;

    /**
     * True once, after a read of the revisions that was not the whole answer (the tree is damaged or rolled back): the
     * caller reads them again, and gets the salvage past the tree.
     */
    public boolean readAgain() {
        boolean r = readAgain;
        readAgain = false;
        return r;
    }

    /** Whether the revisions are read past the tree (a salvage: the tree could not be taken whole). */
    public boolean salvaging() {
        return salvage;
    }

    /** A leaf page all of whose keys are revision keys (17 bytes, or 18 ending in t; '_' after the main revision) and none a bucket. */
    private static boolean revisionPage(ByteBuffer p, int n) {
        if (n == 0) return false;
        for (int i = 0; i < n; i++) {
            int e = 16 + i * 16;
            int kl = p.getInt(e + 8);
            if ((p.getInt(e) & 1) != 0 || (kl != REV_BYTES && kl != REV_BYTES + 1)) return false;
            int k = e + p.getInt(e + 4);
            if (p.get(k + 8) != '_' || (kl == REV_BYTES + 1 && p.get(k + REV_BYTES) != 't')) return false;
        }
        return true;
    }

    /** Revisions newer than {@code treeLast} in pages the tree does not reach. */
    private long pastTree(long treeLast) throws IOException {
        long[] n = {0};
        bolt.scanPastTree(EtcdDb::revisionPage, (p, k, kl, v, vl, b) -> {
            if (bigEndian(p, k) > treeLast) n[0]++;
        });
        return n[0];
    }

    /**
     * A revision found by the salvage: its revision, where its KeyValue is (its page and place there; or its bytes, from a
     * bucket inline in another page), and whether the tree reached it.
     */
    private record Found(long main, long sub, boolean tombstone, long page, int valueAt, int valueLength, byte[] bytes, boolean tree) {
        static Found at(ByteBuffer p, long main, long sub, boolean tombstone, int v, int vl, boolean tree, boolean inline) {
            return inline ? new Found(main, sub, tombstone, -1, 0, vl, EtcdDb.copy(p, v, vl), tree) : new Found(main, sub, tombstone, p.getLong(0), v, vl, null, tree);
        }
    }

    /**
     * The salvage past the tree, as sqlite3's .recover reads a damaged SQLite file: the revisions the tree still reaches,
     * and, from every page of the file whose header says leaf and whose keys are all revision keys, the revisions the
     * tree would have held where it is lost (a key range whose page could not be read; everything, with no valid meta)
     * and those newer than its last (a commit whose meta is lost: the tree rolled back). Pages the tree does not reach
     * otherwise are older copies of its leaves (bbolt writes a changed page anew): what they hold was compacted or
     * rewritten since, and is left out. Given in revision order; what was found, lost and uncertain is damage.
     */
    private void salvaged(RevisionVisitor visitor) throws IOException {
        // Where each revision is (its page and its value's place there), in a list put in revision order at the end (a
        // timsort: the pages mostly come in that order already), the tree's first, so that of two copies the tree's is
        // kept; then each read again from its page in that order: no value is copied (a 1.3 GB db's are 1 GB).
        List<Found> found = new ArrayList<>();
        KvDecoder dec = new KvDecoder();
        KvFields kv = new KvFields();
        long[] treeLast = {-1};
        BoltFile.BucketRef key = bolt.rootPage() < 0 ? null : bolt.bucket("key");
        int lostBefore = bolt.lostRanges().size();
        if (key != null) {
            bolt.walk(key, (p, k, kl, v, vl, bucket) -> {
                if (bucket || !revisionKey(p, k, kl) || !dec.decode(p, v, vl, kv) || !kv.hasKey()) return;
                long main = bigEndian(p, k);
                if (kl == REV_BYTES && kv.modRevision() != main) return;
                treeLast[0] = Math.max(treeLast[0], main);
                found.add(Found.at(p, main, bigEndian(p, k + 9), kl == REV_BYTES + 1, v, vl, true, key.inline() != null));
            });
        }
        List<BoltFile.KeyRange> lost = key == null ? List.of(new BoltFile.KeyRange(null, null))
                : List.copyOf(bolt.lostRanges().subList(lostBefore, bolt.lostRanges().size()));
        boolean everything = lost.size() == 1 && lost.get(0).from() == null && lost.get(0).to() == null;
        long[] past = {0, Long.MAX_VALUE, -1, 0}; // main revisions found past the tree, newer than its last: count, first, last; entries from lost ranges
        java.util.Set<Long> newerMains = new java.util.HashSet<>();
        int pages = bolt.scanPastTree(EtcdDb::revisionPage, (p, k, kl, v, vl, bucket) -> {
            long main = bigEndian(p, k);
            boolean newer = treeLast[0] >= 0 && main > treeLast[0];
            boolean inLost = everything;
            if (!inLost && !lost.isEmpty()) {
                byte[] rk = copy(p, k, kl);
                for (BoltFile.KeyRange r : lost) inLost |= r.contains(rk);
            }
            if ((!newer && !inLost) || !dec.decode(p, v, vl, kv) || !kv.hasKey()) return;
            if (kl == REV_BYTES && kv.modRevision() != main) return;
            found.add(Found.at(p, main, bigEndian(p, k + 9), kl == REV_BYTES + 1, v, vl, false, false));
        });
        found.sort(REVISION_ORDER);
        // Each revision once: the first of equal ones (the tree's, else the first page's).
        int n = 0;
        for (int i = 0; i < found.size(); i++) {
            Found f = found.get(i);
            if (n > 0 && REVISION_ORDER.compare(found.get(n - 1), f) == 0) continue;
            found.set(n++, f);
            if (f.tree()) continue;
            if (treeLast[0] >= 0 && f.main() > treeLast[0]) {
                if (newerMains.add(f.main())) past[0]++;
                past[1] = Math.min(past[1], f.main());
                past[2] = Math.max(past[2], f.main());
            } else {
                past[3]++;
            }
        }
        found.subList(n, found.size()).clear();
        if (key == null || bolt.bucket("meta") == null) scanSmallBuckets();
        // Given in revision order, each read again from its page; each key's latest revision noted for what is uncertain.
        // (Only when a revision is lost: the keys whose latest revision found is older than it are uncertain.)
        java.util.Map<ByteBuffer, Long> latest = lostRevisions(found)[0] > 0 ? new java.util.HashMap<>() : null;
        for (Found f : found) {
            ByteBuffer b = f.bytes() != null ? ByteBuffer.wrap(f.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN) : bolt.pageAt(f.page());
            int at = f.bytes() != null ? 0 : f.valueAt();
            if (b == null || !dec.decode(b, at, f.valueLength(), kv)) continue; // the file changed under the read: left out
            if (latest != null) latest.put(ByteBuffer.wrap(kv.key(b)), f.main());
            visitor.revision(f.main(), f.sub(), f.tombstone(), b, kv);
        }
        salvageFacts(found, latest, lost, pages, treeLast[0], past);
    }

    /**
     * The main revisions missing between those found above the compaction (etcd's are consecutive: each one missing
     * was a write): {count, first, last, the last found}.
     */
    private long[] lostRevisions(List<Found> found) {
        long compact = Math.max(compactRevision, scheduledCompactRevision);
        long prev = -1;
        long count = 0;
        long first = -1;
        long last = -1;
        for (Found e : found) {
            long main = e.main();
            if (prev >= 0 && main > prev + 1 && main > compact + 1) {
                long from = Math.max(prev + 1, compact + 1);
                count += main - from;
                if (first < 0) first = from;
                last = main - 1;
            }
            prev = main;
        }
        return new long[] {count, first, last, prev};
    }

    /** Revision order: the bucket's key order (main, then sub; a revision is a put or a tombstone, not both). */
    private static final java.util.Comparator<Found> REVISION_ORDER = java.util.Comparator.comparingLong(Found::main).thenComparingLong(Found::sub);

    /**
     * With the root bucket lost, the meta and lease buckets' entries from the pages that hold them: a leaf whose keys are
     * all etcd's meta names (the compaction, the newest found: it only grows), a leaf whose keys are all 8-byte lease IDs
     * and whose values are leasepb.Lease records of those IDs.
     */
    private void scanSmallBuckets() throws IOException {
        long[] out = new long[1];
        bolt.scanPastTree((p, n) -> {
            boolean meta = true;
            boolean lease = true;
            for (int i = 0; i < n; i++) {
                int e = 16 + i * 16;
                int k = e + p.getInt(e + 4);
                int kl = p.getInt(e + 8);
                String name = kl <= 32 ? ascii(p, k, kl) : "";
                meta &= name.equals("consistent_index") || name.equals("finishedCompactRev") || name.equals("scheduledCompactRev");
                int v = k + kl;
                int vl = p.getInt(e + 12);
                lease &= kl == 8 && vl > 0 && (p.get(v) == 0x08) && Varints.readVarint(p, v + 1, v + vl, out) > 0 && out[0] == bigEndian(p, k);
            }
            return meta || lease;
        }, (p, k, kl, v, vl, bucket) -> {
            if (kl == 8) {
                long id = bigEndian(p, k);
                long ttl = -1;
                for (int i = v; i >= 0 && i < v + vl; ) {
                    i = Varints.readVarint(p, i, v + vl, out);
                    if (i < 0) break;
                    int field = (int) (out[0] >>> 3);
                    i = Varints.readVarint(p, i, v + vl, out);
                    if (i > 0 && field == 2) ttl = out[0];
                }
                leases.put(id, ttl);
                return;
            }
            String name = ascii(p, k, kl);
            if (name.equals("finishedCompactRev") && vl >= REV_BYTES) compactRevision = Math.max(compactRevision, bigEndian(p, v));
            else if (name.equals("scheduledCompactRev") && vl >= REV_BYTES) scheduledCompactRevision = Math.max(scheduledCompactRevision, bigEndian(p, v));
            else if (name.equals("consistent_index") && vl == 8) consistentIndex = Math.max(consistentIndex, bigEndian(p, v));
        });
    }

    private static boolean revisionKey(ByteBuffer p, int k, int kl) {
        return (kl == REV_BYTES || kl == REV_BYTES + 1) && p.get(k + 8) == '_' && (kl == REV_BYTES || p.get(k + REV_BYTES) == 't');
    }

    private static byte[] copy(ByteBuffer p, int at, int length) {
        byte[] b = new byte[length];
        p.get(at, b);
        return b;
    }

    /** Keys named in a salvage's damage line, at most. */
    private static final int NAMED = 5;

    /**
     * What the salvage says, as damage lines: what it read past the tree, the revisions past the tree's last (rolled
     * back), the revisions lost (etcd's main revisions above the compaction are consecutive: each one missing was a
     * write), and the keys whose state is uncertain (a lost revision above their latest may have changed or deleted them).
     */
    private void salvageFacts(List<Found> found, java.util.Map<ByteBuffer, Long> latest, List<BoltFile.KeyRange> lost, int pages, long treeLast, long[] past) {
        if (past[0] > 0) {
            damage.add(new BoltDamage(-1, -1, String.format("%,d revision(s) %d..%d are newer than the tree's last, %d, in pages the tree does not reach: "
                    + "a commit whose meta is lost (the tree rolled back, as bbolt #1033); read past the tree", past[0], past[1], past[2], treeLast)));
        }
        if (!lost.isEmpty()) {
            damage.add(new BoltDamage(-1, -1, String.format("the tree's %s could not be read: %,d revision(s) found for it in %,d leaf page(s) the tree "
                    + "does not reach (a salvage past the tree, as sqlite3's .recover)", lost.get(0).from() == null && lost.get(0).to() == null
                    ? "key bucket" : lost.size() + " lost key range(s)", past[3], pages)));
        }
        // Lost revisions: gaps between the main revisions found, above the compaction.
        long[] gaps = lostRevisions(found);
        long lostCount = gaps[0];
        long firstLost = gaps[1];
        long lastLost = gaps[2];
        long prev = gaps[3];
        if (lostCount > 0) {
            List<String> uncertain = new ArrayList<>();
            long n = 0;
            for (java.util.Map.Entry<ByteBuffer, Long> e : latest.entrySet()) {
                if (e.getValue() >= lastLost) continue;
                n++;
                if (uncertain.size() < NAMED) {
                    byte[] k = new byte[e.getKey().remaining()];
                    e.getKey().duplicate().get(k);
                    uncertain.add(quote(k));
                }
            }
            java.util.Collections.sort(uncertain);
            damage.add(new BoltDamage(-1, -1, String.format("%,d revision(s) between %d and %d are found nowhere in the file (lost with the pages that held them); "
                    + "%,d key(s) whose latest revision found is older are uncertain: a lost revision may have changed or deleted them%s", lostCount,
                    firstLost, lastLost, n, n == 0 ? "" : " (" + String.join(", ", uncertain) + (n > uncertain.size() ? ", …" : "") + ")")));
        }
        if (bolt.meta() == null || !lost.isEmpty() || past[0] > 0) {
            damage.add(new BoltDamage(-1, -1, "revisions after the last found, " + prev + ", if the db held any, cannot be known from what is left"
                    + (bolt.meta() == null ? " (no valid meta page: the high-water mark is lost)" : "")));
        }
    }



    /** A page-aligned page of the file inside a value spread over overflow pages that is all zeros: damage, named (true). */
    private boolean zeroPages(java.nio.ByteBuffer p, int v, int vl, long main, long sub, KvFields kv) {
        int ps = bolt.pageSize();
        long pid = p.getLong(0);
        int first = (v + ps - 1) / ps * ps; // the first page boundary inside the value (index in p)
        for (int at = first; at + ps <= v + vl; at += ps) {
            // A page's first and last 16 bytes first (one touch of a page that is not all zeros), then the page.
            if (p.getLong(at) != 0 || p.getLong(at + 8) != 0 || p.getLong(at + ps - 16) != 0 || p.getLong(at + ps - 8) != 0) continue;
            if (p.slice(at, ps).mismatch(ZERO_PAGE.slice(0, ps)) != -1) continue;
            long page = pid + at / ps;
            damage.add(new BoltDamage(page, page * ps, "revision " + main + "." + sub + " (key " + quote(kv.key(p)) + "): page " + page
                    + ", inside its value of " + kv.valueLength() + " bytes, is all zeros (a lost block: bbolt keeps no page checksum)"));
            return true;
        }
        return false;
    }

    private static final java.nio.ByteBuffer ZERO_PAGE = java.nio.ByteBuffer.allocateDirect(65536).asReadOnlyBuffer();

    private static String quote(byte[] key) {
        return dev.walkit.format.KeyQuote.quote(key);
    }

    public BoltFile bolt() {
        return bolt;
    }

    /** The compaction that finished (0: none): the db keeps no revision below it but each key's latest. */
    public long compactRevision() {
        return compactRevision;
    }

    public long scheduledCompactRevision() {
        return scheduledCompactRevision;
    }

    /** The raft index the db has applied up to, or -1 when it does not say. */
    public long consistentIndex() {
        return consistentIndex;
    }

    /** Lease ID → TTL in seconds (-1 when the record does not say), as granted. */
    public Map<Long, Long> leases() {
        return leases;
    }

    /** What the SHA-256 alone tells when nothing else was found: where the change can be, and how to look. */
    private String shaOnly() {
        return checkValues ? "; every page reached and every value checks out: the change is inside a value's text, or on a page no key reaches (a free one)"
                : "; every page reached checks out: the change is inside a value (walverify --level values checks each) or on a page no key reaches (a free one)";
    }

    private EtcdWal.Read wal;
    private boolean walRead;
    private boolean checkValues;

    /** Every revision's Kubernetes value checked as its revisions are read ({@link dev.walkit.format.ValueCheck}): walverify --level values. */
    public void checkValues(boolean on) {
        checkValues = on;
    }
    private RaftApply.Result applied;

    /**
     * A data directory's own log ({@code member/wal} beside {@code member/snap/db}): its entries past the db's
     * consistent index, which etcd applies at its next start; null for a db that is not in a data directory.
     */
    public EtcdWal.Read etcdWal() throws IOException {
        if (!walRead) {
            walRead = true;
            Path dir = EtcdWal.walDirOf(bolt.path());
            // No consistent index yet: a db committed before any entry was applied to it (etcd's first batch).
            if (dir != null) wal = EtcdWal.read(dir, Math.max(0, consistentIndex));
        }
        return wal;
    }

    void applied(RaftApply.Result r) {
        applied = r;
    }

    /** The bbolt damage, the trailer's mismatch, then the etcd-level damage (waits for the trailer's check). */
    public List<BoltDamage> damage() throws IOException {
        // Each once: a damaged page on the way to several buckets (the root's) is met by each bucket's lookup.
        java.util.LinkedHashSet<BoltDamage> all = new java.util.LinkedHashSet<>(bolt.damage());
        if (trailer() == Trailer.SHA256_DIFFERS) {
            all.add(new BoltDamage(-1, bolt.size() - 32, "the snapshot's SHA-256 (its last 32 bytes, as etcdctl snapshot save writes it) does not match its pages: the file changed since it was saved"
                    + (bolt.damage().isEmpty() && damage.isEmpty() ? shaOnly() : "")));
        } else if (trailer() == Trailer.NOT_WHOLE) {
            long ps = bolt.pageSize();
            long past = bolt.size() % ps;
            all.add(new BoltDamage(-1, bolt.size() - past, "the file ends " + past + " byte(s) past its last whole page: neither a member's db (whole pages) "
                    + "nor an etcdctl snapshot (whole pages and a 32-byte SHA-256): it was cut short or appended to"));
        }
        all.addAll(damage);
        if (etcdWal() != null) for (String d : etcdWal().damage()) all.add(new BoltDamage(-1, -1, "member/wal: " + d));
        if (applied != null && !applied.undecodable.isEmpty()) {
            all.add(new BoltDamage(-1, -1, "member/wal: " + applied.undecodable.size() + " entr" + (applied.undecodable.size() == 1 ? "y" : "ies")
                    + " past the consistent index whose data is no request this reads (index " + applied.undecodable.get(0)
                    + (applied.undecodable.size() > 1 ? ", …" : "") + "): not applied, so what etcd serves after a restart may differ"));
        }
        return List.copyOf(all);
    }

    /**
     * The db as the one account names it ({@link dev.walkit.format.account.Store}): its size, the revisions it holds,
     * its lease bucket, its own facts and damage; read after its revisions were (the damage waits for the trailer).
     */
    public dev.walkit.format.account.Store store(Path path, long revisionsHeld) throws IOException {
        List<String> damage = new java.util.ArrayList<>();
        for (BoltDamage d : damage()) damage.add(d.toString());
        String detail = String.format("bbolt page size %d, %s, %s, %d lease(s) in its lease bucket%s%s", bolt.pageSize(),
                bolt.meta() == null ? "no valid meta page" : "txid " + bolt.meta().txid(), consistentIndex() < 0 ? "no consistent index" : "consistent index " + consistentIndex(), leases.size(), trailer() == Trailer.SHA256_MATCHES ? ", etcdctl snapshot's SHA-256 matches" : "",
                walFacts());
        return new dev.walkit.format.account.Store(dev.walkit.format.account.Store.Kind.ETCD_DB, path, bolt.size(), "etcd-db", revisionsHeld,
                leases.size(), detail, damage);
    }

    /** {@code ; member/wal: 12 entries past the consistent index applied (…), to revision 440} and its torn tail; "" without a log. */
    private String walFacts() throws IOException {
        EtcdWal.Read w = etcdWal();
        if (w == null) return "";
        StringBuilder b = new StringBuilder("; member/wal: ");
        if (w.entries().isEmpty()) b.append("nothing past the consistent index (the db holds every entry applied)");
        else {
            b.append(w.entries().size()).append(" entr").append(w.entries().size() == 1 ? "y" : "ies").append(" past the consistent index, up to index ")
                    .append(w.lastIndex()).append(", applied as etcd applies them at its next start");
            if (applied != null) {
                b.append(": ").append(applied.revisions.size()).append(" revision(s) written");
                if (!applied.granted.isEmpty()) b.append(", ").append(applied.granted.size()).append(" lease(s) granted");
                if (!applied.revoked.isEmpty()) b.append(", ").append(applied.revoked.size()).append(" revoked");
            }
        }
        if (w.tornTail() != null) b.append("; a torn tail (a write cut short by the crash, never acknowledged; etcd drops it): ").append(w.tornTail());
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        try {
            trailer.join();
        } catch (java.util.concurrent.CompletionException e) {
            // its failure was the caller's to ask for
        } finally {
            bolt.close();
        }
    }
}
