package dev.walkit.verify;

import dev.walkit.format.pass.PassReport;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.render.AccountJson;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w json}: one document (schema {@value WalVerify#SCHEMA}); its parts are also --jsonl's lines. */
final class JsonPrinter implements VerifyPrinter {
    @Override
    public void print(PrintWriter out, PassReport r, ExitCode code) {
        out.println(summary(r, code, true));
    }

    /** A damaged span as a JSON object (a --jsonl line): its one shape ({@link AccountJson}). */
    static Json damage(Json j, DamageLocator.Located d) {
        return AccountJson.span(j, d);
    }

    /** A finding as a JSON object (a --jsonl line): its one shape ({@link AccountJson}). */
    static Json finding(Json j, Finding f) {
        return AccountJson.finding(j, f);
    }

    /** Damage of an etcd db's or kine db's own format (a --jsonl line; -w json's store_damage holds the details). */
    static Json storeDamage(Json j, String store, String detail) {
        return j.beginObject().field("type", "store_damage").field("store", store).field("detail", detail).endObject();
    }

    /** The report: with the lists (-w json) or their counts only (--jsonl's last line). */
    static String summary(PassReport r, ExitCode code, boolean withLists) {
        Json j = new Json().beginObject().field("schema", WalVerify.SCHEMA);
        if (!withLists) j.field("type", "summary");
        j.field("level", r.level().name().toLowerCase(java.util.Locale.ROOT));
        AccountJson.facts(j, r.account(), false);
        j.name("leftover_compaction").value(r.leftoverCompaction() == null ? null : r.leftoverCompaction().toString());
        j.fieldOrNull("grew_to", r.grewTo());
        if (withLists) {
            AccountJson.lists(j, r.account());
        } else {
            j.field("damage_count", r.damage().size() + r.storeDamage().size()).field("finding_count", r.account().findingCount());
        }
        return j.field("verdict", r.verdict()).field("exit_code", code.code()).endObject().toString();
    }
}
