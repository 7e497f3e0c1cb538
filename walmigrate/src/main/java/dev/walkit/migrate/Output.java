package dev.walkit.migrate;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.Table;

import java.io.PrintWriter;
import java.util.List;

/** What walmigrate prints for a migration and for verify, in each of the -w formats. */
final class Output {
    /** The JSON schema version of -w json. */
    static final String SCHEMA = "walkit.walmigrate/v1";

    private Output() {
    }

    static void migration(PrintWriter out, OutputFormat f, String source, MigrateOptions o, MigrationReport r, ExitCode code) {
        String target = o.dryRun() ? null : String.join(",", o.endpoints());
        double keysPerSecond = r.sourceKeys() / Math.max(r.seconds(), 1e-3);
        switch (f) {
            case JSON -> {
                Json j = new Json().beginObject().field("schema", SCHEMA).field("type", "migration").field("source", source)
                        .field("target", target).field("dry_run", o.dryRun()).field("source_keys", r.sourceKeys()).field("batches", r.batches())
                        .field("written", r.written()).field("already_present", r.alreadyPresent()).field("conflict_count", r.conflictCount())
                        .field("not_written", r.unsent());
                keys(j, "conflicts", r.conflicts());
                list(j, "too_large", r.tooLarge());
                list(j, "errors", r.errors());
                j.field("leases_granted", r.leasesGranted()).field("leases_reused", r.leasesReused()).field("seconds", Math.round(r.seconds() * 1000) / 1000.0)
                        .field("keys_per_second", Math.round(keysPerSecond)).field("exit_code", code.code());
                out.println(j.endObject());
            }
            case TABLE -> {
                new Table("field", "value").row("source", source).row("target", target == null ? "(dry run)" : target).row("source keys", r.sourceKeys())
                        .row("batches", r.batches()).row("written", r.written()).row("already present", r.alreadyPresent())
                        .row("conflicts", r.conflictCount()).row("not written", r.unsent()).row("too large", r.tooLarge().size()).row("leases granted", r.leasesGranted()).row("leases reused", r.leasesReused())
                        .row("seconds", String.format("%.1f", r.seconds())).row("keys/s", Math.round(keysPerSecond)).print(out);
                Table c = new Table("conflict (left as it is)");
                for (byte[] k : r.conflicts()) c.row(quote(k));
                if (!c.isEmpty()) c.print(out);
            }
            default -> {
                out.printf("walmigrate: %s -> %s: %,d source key(s) in %,d batch(es): %,d written, %,d already present, %,d conflict(s), %,d too large, %,d lease(s) granted%s; %.1f s (%,.0f keys/s)%s%n",
                        source, target == null ? "(dry run)" : target, r.sourceKeys(), r.batches(), r.written(), r.alreadyPresent(), r.conflictCount(),
                        r.tooLarge().size(), r.leasesGranted(), r.leasesReused() > 0 ? String.format(" (%,d reused)", r.leasesReused()) : "", r.seconds(), keysPerSecond,
                        o.dryRun() ? "; nothing written" : r.unsent() > 0 ? String.format("; %,d not written (stopped)", r.unsent()) : "");
                for (byte[] k : r.conflicts()) out.println("  conflict (left as it is): " + quote(k));
            }
        }
    }

    /** A follow: the copy's report, then what the follow applied, the lag it kept, the cut-over and its verify. */
    static void follow(PrintWriter out, OutputFormat f, String source, String target, Follow.Result r, ExitCode code) {
        FollowReport w = r.follow();
        switch (f) {
            case JSON -> {
                MigrationReport c = r.copy();
                Json j = new Json().beginObject().field("schema", SCHEMA).field("type", "follow").field("source", source)
                        .field("target", target).field("copy_revision", w == null ? null : w.copyRevision())
                        .field("resumed", w == null ? null : w.resumed()).field("copied_keys", c.sourceKeys()).field("written", c.written())
                        .field("already_present", c.alreadyPresent()).field("conflict_count", c.conflictCount());
                keys(j, "conflicts", c.conflicts());
                list(j, "errors", c.errors());
                j.field("leases_granted", c.leasesGranted()).field("leases_reused", c.leasesReused()).field("copy_seconds", Math.round(c.seconds() * 1000) / 1000.0);
                if (w != null) {
                    j.field("transactions", w.transactions()).field("target_transactions", w.targetTransactions()).field("coalesce", w.coalesce())
                            .field("changes", w.changes()).field("follow_conflicts", w.conflicts());
                    keys(j, "follow_conflict_keys", w.conflictKeys());
                    j.field("already_absent", w.alreadyAbsent())
                            .field("lag_revisions_p50", w.lagRevisionsP50()).field("lag_revisions_p99", w.lagRevisionsP99())
                            .field("lag_ms_p50", Math.round(w.lagMillisP50() * 10) / 10.0).field("lag_ms_p99", Math.round(w.lagMillisP99() * 10) / 10.0)
                            .field("pipeline", w.pipeline()).field("pipeline_most_in_flight", w.mostInFlight()).field("pipeline_restarts", w.pipelineRestarts())
                            .field("split_transactions", w.splits())
                            .field("cutover_revision", w.cutoverRevision()).field("cutover_why", w.cutoverWhy())
                            .field("cutover_seconds", Math.round(w.cutoverSeconds() * 1000) / 1000.0).field("equal", w.verify().equal())
                            .field("missing_count", w.verify().missingCount()).field("extra_count", w.verify().extraCount())
                            .field("different_count", w.verify().differentCount());
                }
                out.println(j.field("stopped", r.stopped()).field("exit_code", code.code()).endObject());
            }
            case TABLE -> {
                MigrationReport c = r.copy();
                Table t = new Table("field", "value").row("source", source).row("target", target).row("copied keys", c.sourceKeys())
                        .row("written", c.written()).row("already present", c.alreadyPresent()).row("conflicts", c.conflictCount())
                        .row("leases granted", c.leasesGranted()).row("leases reused", c.leasesReused()).row("copy seconds", String.format("%.1f", c.seconds()));
                if (w != null) {
                    t.row("resumed", w.resumed() == null ? "no" : w.resumed()).row("copy revision", w.copyRevision()).row("transactions", w.transactions())
                            .row("target transactions", w.targetTransactions() + " (--coalesce " + w.coalesce() + ")")
                            .row("changes", w.changes()).row("follow conflicts", w.conflicts()).row("already absent", w.alreadyAbsent())
                            .row("lag p50", w.lagRevisionsP50() + " revision(s) / " + String.format("%.1f ms", w.lagMillisP50()))
                            .row("lag p99", w.lagRevisionsP99() + " revision(s) / " + String.format("%.1f ms", w.lagMillisP99()))
                            .row("pipeline", w.mostInFlight() + " in flight at most of " + w.pipeline() + ", " + w.pipelineRestarts() + " restart(s)")
                            .row("split transactions", w.splits())
                            .row("cut-over revision", w.cutoverRevision()).row("cut-over", w.cutoverWhy())
                            .row("cut-over seconds", String.format("%.2f", w.cutoverSeconds())).row("equal", w.verify().equal());
                }
                if (r.stopped() != null) t.row("stopped", r.stopped());
                t.print(out);
                Table k = new Table("conflict (left as it is)");
                for (byte[] key : c.conflicts()) k.row(quote(key));
                if (w != null) for (byte[] key : w.conflictKeys()) k.row(quote(key));
                if (!k.isEmpty()) k.print(out);
            }
            default -> {
                MigrationReport c = r.copy();
                out.printf("walmigrate: %s -> %s: copied %,d key(s): %,d written, %,d already present, %,d conflict(s), %,d lease(s) granted%s; %.1f s%n",
                        source, target, c.sourceKeys(), c.written(), c.alreadyPresent(), c.conflictCount(), c.leasesGranted(),
                        c.leasesReused() > 0 ? String.format(" (%,d reused)", c.leasesReused()) : "", c.seconds());
                for (byte[] k : c.conflicts()) out.println("  conflict (left as it is): " + quote(k));
                if (w == null) return;
                if (w.resumed() != null) out.printf("walmigrate: resumed %s (the target's marker)%n", w.resumed());
                out.printf("walmigrate: followed from revision %d: %,d transaction(s) applied (%,d change(s)%s), %,d conflict(s)%s; lag p50 %,d revision(s) / %.1f ms, "
                                + "p99 %,d / %.1f ms; %d transaction(s) in flight at most (--pipeline %d)%s%n", w.copyRevision(), w.transactions(), w.changes(),
                        w.targetTransactions() != w.transactions() ? String.format(" in %,d target transaction(s)", w.targetTransactions()) : "", w.conflicts(),
                        w.alreadyAbsent() > 0 ? String.format(", %,d delete(s) of keys already gone from the target", w.alreadyAbsent()) : "",
                        w.lagRevisionsP50(), w.lagMillisP50(), w.lagRevisionsP99(), w.lagMillisP99(), w.mostInFlight(), w.pipeline(),
                        (w.pipelineRestarts() > 0 ? String.format(", %,d restart(s) from the marker", w.pipelineRestarts()) : "")
                                + (w.splits() > 0 ? String.format("; %,d transaction(s) split across shards (their other keys another shard's)", w.splits()) : ""));
                for (byte[] k : w.conflictKeys()) out.println("  conflict in the follow (left as it is): " + quote(k));
                out.printf("walmigrate: cut over at revision %d (%s) in %.2f s: target %s the source (%,d same, %,d missing, %,d extra, %,d different)%s%n",
                        w.cutoverRevision(), w.cutoverWhy(), w.cutoverSeconds(), w.verify().equal() ? "equal to" : "NOT equal to", w.verify().same(),
                        w.verify().missingCount(), w.verify().extraCount(), w.verify().differentCount(),
                        !w.verify().equal() ? "" : target.contains("://") ? "; marker removed" : "; published");
            }
        }
    }

    static void comparison(PrintWriter out, OutputFormat f, Comparison c) {
        switch (f) {
            case JSON -> {
                Json j = new Json().beginObject().field("schema", SCHEMA).field("type", "verify").field("source_keys", c.sourceKeys())
                        .field("target_keys", c.targetKeys()).field("same", c.same()).field("missing_count", c.missingCount())
                        .field("extra_count", c.extraCount()).field("different_count", c.differentCount());
                keys(j, "missing", c.missing());
                keys(j, "extra", c.extra());
                keys(j, "different", c.different());
                list(j, "different_why", c.differentWhy());
                out.println(j.field("equal", c.equal()).endObject());
            }
            case TABLE -> {
                new Table("field", "value").row("source keys", c.sourceKeys()).row("target keys", c.targetKeys()).row("same", c.same())
                        .row("missing", c.missingCount()).row("extra", c.extraCount()).row("different", c.differentCount()).print(out);
                Table keys = new Table("difference", "key");
                for (byte[] k : c.missing()) keys.row("missing", quote(k));
                for (byte[] k : c.extra()) keys.row("extra", quote(k));
                for (int i = 0; i < c.different().size(); i++) keys.row("different", quote(c.different().get(i)) + " (" + c.differentWhy().get(i) + ")");
                if (!keys.isEmpty()) keys.print(out);
                out.println(c.equal() ? "equal" : "NOT equal");
            }
            default -> {
                out.printf("walmigrate verify: source %,d key(s), target %,d key(s): %,d same, %,d missing, %,d extra, %,d different%n",
                        c.sourceKeys(), c.targetKeys(), c.same(), c.missingCount(), c.extraCount(), c.differentCount());
                for (byte[] k : c.missing()) out.println("  missing: " + quote(k));
                for (byte[] k : c.extra()) out.println("  extra: " + quote(k));
                for (int i = 0; i < c.different().size(); i++) out.println("  different: " + quote(c.different().get(i)) + " (" + c.differentWhy().get(i) + ")");
                out.println(c.equal() ? "equal" : "NOT equal");
            }
        }
    }

    /** An offline output written: {@code kind} is "wal" (DIR/wal) or "kine" (DIR/state.db). */
    static void offline(PrintWriter out, OutputFormat f, String kind, java.nio.file.Path wal, OfflineWal.Written w) {
        long revision = w.revision();
        switch (f) {
            case JSON -> {
                Json j = new Json().beginObject().field("schema", SCHEMA).field("type", "offline-" + kind).field(kind.equals("wal") ? "wal" : "state_db", wal.toString())
                        .field("keys", w.keys()).field("revision", revision);
                list(j, "cleaned_up", w.cleanedUp());
                list(j, "notes", w.notes());
                out.println(j.endObject());
            }
            case TABLE -> {
                Table t = new Table("field", "value").row(kind.equals("wal") ? "wal" : "state.db", wal).row("keys", w.keys()).row("revision", revision);
                for (String c : w.cleanedUp()) t.row("cleaned up", c);
                for (String c : w.notes()) t.row("note", c);
                t.print(out);
            }
            default -> {
                for (String c : w.cleanedUp()) out.printf("walmigrate: %s%n", c);
                out.printf("walmigrate: wrote %s: %,d key(s) at revision %d%n", wal, w.keys(), revision);
                for (String c : w.notes()) out.printf("walmigrate: note: %s%n", c);
            }
        }
        out.flush();
    }

    /** A key in text: printable bytes as they are, others as {@code \xNN} (a backslash doubled): it can be pasted back. */
    private static String quote(byte[] key) {
        return dev.walkit.cli.KeyText.quote(key);
    }

    /** Keys in JSON: their one shape ({@link dev.walkit.cli.render.AccountJson#keys}), quoted and as base64 (etcdctl -w json's form). */
    private static void keys(Json j, String name, List<byte[]> keys) {
        List<byte[]> copy;
        synchronized (keys) {
            copy = List.copyOf(keys);
        }
        dev.walkit.cli.render.AccountJson.keys(j, name, copy);
    }

    private static void list(Json j, String name, List<String> values) {
        j.name(name).beginArray();
        synchronized (values) {
            for (String v : values) j.value(v);
        }
        j.endArray();
    }
}
