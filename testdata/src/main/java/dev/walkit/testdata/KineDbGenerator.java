package dev.walkit.testdata;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * Writes kine SQLite databases with kine's real schema and row conventions, and keeps the expected
 * live set: creates, updates and deletes of Kubernetes-shaped keys, leases as TTLs, kine's own
 * {@code compact_rev_key} and {@code gap-*} rows; optionally the old {@code name INTEGER} column,
 * pre-v0.16 delete rows that still carry value and lease, and rows committed only in
 * {@code state.db-wal} (the copy is taken while the writer still holds the database, un-checkpointed).
 */
public final class KineDbGenerator {
    /**
     * @param seed         random seed
     * @param steps        rows of history to write
     * @param nameInteger  kine before v0.16.3: {@code name INTEGER}
     * @param preV016      kine before v0.16.0: delete rows keep value and lease
     * @param walOnlySteps further steps committed only in the -wal file
     * @param largeValue   bytes of one extra key's value (0: none), to test the request limit
     * @param prefix       put before every key (so that tests can share one target); "" for none
     */
    public record Options(long seed, int steps, boolean nameInteger, boolean preV016, int walOnlySteps, int largeValue, String prefix) {
        public static Options of(long seed, int steps) {
            return new Options(seed, steps, false, false, 0, 0, "");
        }

        public Options withPrefix(String p) {
            return new Options(seed, steps, nameInteger, preV016, walOnlySteps, largeValue, p);
        }
    }

    /** A live key of the model: value and lease TTL. */
    public record Live(byte[] value, long lease) {
    }

    private final Options o;
    private final Random rnd;
    private final TreeMap<String, Live> live = new TreeMap<>();
    private final TreeMap<String, long[]> ids = new TreeMap<>(); // name -> {create id, last id}
    private final List<String> names = new ArrayList<>();
    private final java.util.Set<String> known = new java.util.HashSet<>();
    private long id;

    public KineDbGenerator(Options o) {
        this.o = o;
        this.rnd = new Random(o.seed());
    }

    public TreeMap<String, Live> live() {
        return live;
    }

    /** The greatest row id written (kine's revision). */
    public long revision() {
        return id;
    }

    /** Writes {@code db} (and, with WAL-only steps, {@code db-wal} and {@code db-shm}). */
    public void write(Path db) throws IOException {
        Path work = Files.createTempDirectory("kinegen-");
        Path wdb = work.resolve("state.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + wdb)) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA wal_autocheckpoint=0");
                s.execute("CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name " + (o.nameInteger() ? "INTEGER" : "TEXT COLLATE BINARY")
                        + ", created INTEGER, deleted INTEGER, create_revision INTEGER, prev_revision INTEGER, lease INTEGER, value BLOB, old_value BLOB)");
                s.execute("CREATE INDEX kine_name_index ON kine (name)");
                s.execute("CREATE INDEX kine_name_id_index ON kine (name,id)");
                s.execute("CREATE INDEX kine_id_deleted_index ON kine (id,deleted)");
                s.execute("CREATE INDEX kine_prev_revision_index ON kine (prev_revision)");
                s.execute("CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision)");
            }
            c.setAutoCommit(false);
            insert(c, "compact_rev_key", 1, 0, 0, 0, 0, new byte[0], null);
            for (int i = 0; i < o.steps(); i++) step(c);
            if (o.largeValue() > 0) {
                byte[] big = new byte[o.largeValue()];
                rnd.nextBytes(big);
                put(c, o.prefix() + "/registry/configmaps/kube-system/huge", big, 0);
            }
            c.commit();
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
            for (int i = 0; i < o.walOnlySteps(); i++) step(c);
            c.commit();
            insertRow.close();
            insertRow = null;
            // Copy while the writer holds the database: the last steps exist only in the -wal file.
            Files.copy(wdb, db);
            for (String suffix : new String[] {"-wal", "-shm"}) {
                Path side = work.resolve("state.db" + suffix);
                if (Files.exists(side)) Files.copy(side, db.resolveSibling(db.getFileName() + suffix));
            }
        } catch (SQLException e) {
            throw new IOException("kine generator: " + e.getMessage(), e);
        } finally {
            try (var s = Files.walk(work)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private void step(Connection c) throws SQLException {
        int dice = rnd.nextInt(100);
        if (dice < 50 || names.isEmpty()) {
            String name = o.prefix() + switch (rnd.nextInt(4)) {
                case 0 -> "/registry/configmaps/ns" + rnd.nextInt(4) + "/cm-" + rnd.nextInt(20000);
                case 1 -> "/registry/events/default/pod-" + rnd.nextInt(5000) + ".e" + rnd.nextInt(99);
                case 2 -> "/registry/leases/kube-node-lease/node-" + rnd.nextInt(50);
                default -> "/registry/pods/default/p-" + rnd.nextInt(30000);
            };
            long lease = name.startsWith(o.prefix() + "/registry/events/") ? (rnd.nextBoolean() ? 3600 : 600) : 0;
            put(c, name, ("{\"v\":" + rnd.nextInt(1_000_000) + ",\"pad\":\"" + "x".repeat(rnd.nextInt(400)) + "\"}").getBytes(StandardCharsets.UTF_8), lease);
        } else if (dice < 80) {
            String name = names.get(rnd.nextInt(names.size()));
            if (live.containsKey(name)) {
                put(c, name, ("{\"v\":" + rnd.nextInt(1_000_000) + "}").getBytes(StandardCharsets.UTF_8), live.get(name).lease());
            }
        } else if (dice < 95) {
            String name = names.get(rnd.nextInt(names.size()));
            if (live.containsKey(name)) delete(c, name);
        } else {
            insert(c, "gap-" + (id + 1), 0, 1, 0, 0, 0, null, null);
        }
    }

    private void put(Connection c, String name, byte[] value, long lease) throws SQLException {
        Live prev = live.get(name);
        long[] r = ids.get(name);
        boolean create = prev == null;
        long createRev = create ? 0 : r[0];
        long prevRev = r == null ? 0 : r[1];
        long newId = insert(c, name, create ? 1 : 0, 0, createRev, prevRev, lease, value, create ? null : prev.value());
        if (create) {
            ids.put(name, new long[] {newId, newId});
            if (known.add(name)) names.add(name);
        } else {
            r[1] = newId;
        }
        live.put(name, new Live(value, lease));
    }

    private void delete(Connection c, String name) throws SQLException {
        Live prev = live.remove(name);
        long[] r = ids.get(name);
        long newId = insert(c, name, 0, 1, r[0], r[1], o.preV016() ? prev.lease() : 0, o.preV016() ? prev.value() : null, prev.value());
        r[1] = newId; // a later put creates it again, with this row as its prev_revision
    }

    private PreparedStatement insertRow;

    private long insert(Connection c, String name, int created, int deleted, long createRev, long prevRev, long lease, byte[] value, byte[] old)
            throws SQLException {
        if (insertRow == null) {
            insertRow = c.prepareStatement("INSERT INTO kine(name, created, deleted, create_revision, prev_revision, lease, value, old_value) VALUES (?,?,?,?,?,?,?,?)");
        }
        PreparedStatement p = insertRow;
        {
            p.setString(1, name);
            p.setInt(2, created);
            p.setInt(3, deleted);
            p.setLong(4, createRev);
            p.setLong(5, prevRev);
            p.setLong(6, lease);
            p.setBytes(7, value);
            p.setBytes(8, old);
            p.executeUpdate();
        }
        id++;
        return id;
    }

    /** The leaf pages of kine's table in {@code db}, in page order (SQLite's dbstat): where the tests damage a table. */
    public static java.util.List<Long> tableLeaves(Path db) throws java.sql.SQLException {
        java.util.List<Long> leaves = new java.util.ArrayList<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT pageno FROM dbstat WHERE name = 'kine' AND pagetype = 'leaf' ORDER BY pageno")) {
            while (r.next()) leaves.add(r.getLong(1));
        }
        return leaves;
    }

    /** Overwrites page {@code page} (1-based, 4096 bytes as generated) of {@code db} with {@code bytes}: zeros, or another page's. */
    public static void overwritePage(Path db, long page, byte[] bytes) throws java.io.IOException {
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(db.toFile(), "rw")) {
            f.seek((page - 1) * 4096);
            f.write(bytes);
        }
    }

    /** Page {@code page} of {@code db} as it stands. */
    public static byte[] page(Path db, long page) throws java.io.IOException {
        byte[] b = new byte[4096];
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(db.toFile(), "r")) {
            f.seek((page - 1) * 4096);
            f.readFully(b);
        }
        return b;
    }
}
