package dev.walkit.format.kine;

import dev.walkit.format.assess.Assessment;
import dev.walkit.format.replay.FormReplay;

import java.io.IOException;
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
 * damaged page of the table held named. Values are not read (their lengths only).
 *
 * @param summary what the conversion of the rows found
 * @param replay  the replay of the rows
 * @param damage  what SQLite found, then the rows it could not read: each a line of the store's damage
 */
public record KineCheck(KineHistoryWal.Summary summary, FormReplay.Result replay, List<String> damage) {
    public KineCheck {
        damage = List.copyOf(damage);
    }

    /** Checks {@code db} (its private copy; read on two connections). */
    public static KineCheck run(KineDb db) throws IOException {
        CompletableFuture<List<String>> check = quickCheckAsync(db);
        KineHistoryWal.Summary[] sum = {null};
        FormReplay.Result r;
        List<String> damage;
        try {
            r = FormReplay.run(sink -> sum[0] = KineHistoryWal.emit(db, sink));
        } finally {
            damage = check.join(); // before the copy is deleted, whatever the replay met
        }
        return new KineCheck(sum[0], r, damage(damage, sum[0])); // rows a damaged page of the table held: not replayed
    }

    /** walverify's verdict on the database: its findings, then any damage of its own makes it damaged. */
    public Assessment.Verdict verdict(long fileSize) {
        return Assessment.of(List.of(), replay.findings(), fileSize).verdictWith(damage.size());
    }

    /** {@link #quickCheck} started on a thread of its own (join it before the copy is closed). */
    public static CompletableFuture<List<String>> quickCheckAsync(KineDb db) {
        return CompletableFuture.supplyAsync(() -> quickCheck(db));
    }

    /** The store's damage: {@code quickCheck}'s lines, then the rows a damaged page of the table held. */
    public static List<String> damage(List<String> quickCheck, KineHistoryWal.Summary summary) {
        List<String> all = new ArrayList<>(quickCheck);
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
