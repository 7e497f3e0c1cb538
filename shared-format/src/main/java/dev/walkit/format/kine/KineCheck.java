package dev.walkit.format.kine;

import dev.walkit.format.account.Account;
import dev.walkit.format.account.AccountListener;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one check of a kine database, as walverify makes it and walmigrate refuses by: SQLite's own check of the file
 * ({@code PRAGMA quick_check}: its pages and indexes) on a thread of its own and, beside it, its rows replayed as a
 * WAL's revisions by the rules every log is held to ({@link FormReplay} over {@link KineHistoryWal}), the rows a
 * damaged page of the table held named. Values are not read (their lengths only). Its result is the db's
 * {@link Account}: what SQLite found and the rows it could not read are the store's own damage.
 */
public final class KineCheck {
    private KineCheck() {
    }

    /**
     * Checks {@code db} (the private copy of {@code stateDb}; read on two connections), the replay told to a listener
     * from {@code listeners}; when SQLite could not read every row and the pages hold more ({@link KineDb#salvageInstead}),
     * the rows are read again from them, told to a fresh listener.
     */
    public static Account account(KineDb db, Path stateDb, java.util.function.Supplier<AccountListener> listeners) throws IOException {
        CompletableFuture<List<String>> check = quickCheckAsync(db);
        KineHistoryWal.Summary[] sum = {null};
        FormReplay.Result r;
        List<String> quick;
        AccountListener listener = listeners.get();
        try {
            r = FormReplay.run(sink -> sum[0] = KineHistoryWal.emit(db, sink), listener);
        } finally {
            quick = check.join(); // before the copy is deleted, whatever the replay met
        }
        if (db.salvageInstead(sum[0].unreadable(), sum[0].rows())) {
            listener = listeners.get();
            r = FormReplay.run(sink -> sum[0] = KineHistoryWal.emit(db, sink), listener);
        }
        return Account.ofForm(sum[0].store(stateDb, Files.size(stateDb), damage(db, quick, sum[0]), db.wal().facts()), r, listener);
    }

    /** {@link #quickCheck} started on a thread of its own (join it before the copy is closed). */
    public static CompletableFuture<List<String>> quickCheckAsync(KineDb db) {
        return CompletableFuture.supplyAsync(() -> quickCheck(db));
    }

    /**
     * The store's damage: what SQLite refused and the rows read from the pages instead ({@link KineSalvage}), the
     * committed transactions its -wal lost ({@link dev.walkit.format.sqlite.SqliteWalCheck}),
     * {@code quickCheck}'s lines, then the rows a damaged page of the table held.
     */
    public static List<String> damage(KineDb db, List<String> quickCheck, KineHistoryWal.Summary summary) {
        List<String> all = new ArrayList<>();
        if (db.salvage() != null) all.add(db.salvage().damage(db.source().getFileName().toString()));
        all.addAll(db.wal().damage());
        all.addAll(quickCheck);
        all.addAll(summary.unreadable());
        return all;
    }

    /** What {@code PRAGMA quick_check} finds (its pages and indexes), each line a damage. */
    static List<String> quickCheck(KineDb db) {
        List<String> damage = new ArrayList<>();
        try (Connection c = db.connectAgain(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("PRAGMA quick_check")) {
            while (r.next()) {
                String line = r.getString(1);
                if ("ok".equals(line)) continue;
                // One row may hold several lines, under a heading naming the database.
                for (String one : line.split("\n")) if (!one.isBlank() && !one.startsWith("*** in database")) damage.add("SQLite quick_check: " + one.strip());
            }
        } catch (SQLException e) {
            damage.add("SQLite quick_check failed: " + e.getMessage());
        }
        return damage;
    }
}
