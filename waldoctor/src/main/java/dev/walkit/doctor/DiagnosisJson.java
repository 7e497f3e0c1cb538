package dev.walkit.doctor;

import dev.walkit.cli.Json;
import dev.walkit.cli.KeyText;
import dev.walkit.cli.render.AccountJson;

import java.io.PrintWriter;

/** {@code -w json}: one document (schema {@value Diagnosis#SCHEMA}); the account's parts in their one shape ({@link AccountJson}). */
final class DiagnosisJson implements DiagnosisPrinter {
    @Override
    public void print(PrintWriter out, Diagnosis d) {
        out.println(json(d));
    }

    static String json(Diagnosis d) {
        Json j = new Json().beginObject().field("schema", Diagnosis.SCHEMA);
        AccountJson.facts(j, d.account());
        j.fieldOrNull("next_lease_id", d.facts().nextLeaseId());
        if (d.account().store().isWal()) {
            j.field("snapshot_prefix_end", d.facts().prefixEnd()).name("revisions_by_offset").beginArray();
            for (long[] p : d.facts().revisionsByOffset()) j.beginArray().value(p[0]).value(p[1]).endArray();
            j.endArray();
        }
        j.name("writes_per_tenth").beginArray();
        for (long w : d.writesPerTenth()) j.value(w);
        j.endArray().name("resources").beginArray();
        for (Diagnosis.Resource r : d.resources()) {
            j.beginObject().field("resource", r.name()).field("live_keys", r.liveKeys()).field("live_bytes", r.liveBytes()).field("writes", r.writes()).endObject();
        }
        j.endArray().name("largest_values").beginArray();
        for (Diagnosis.Largest l : d.largest()) {
            j.beginObject().field("key", KeyText.quote(l.key())).field("key_base64", java.util.Base64.getEncoder().encodeToString(l.key()))
                    .field("bytes", l.bytes()).endObject();
        }
        j.endArray();
        AccountJson.lists(j, d.account());
        // Kept under its v1 name: the keys whose latest state is uncertain (affected_keys).
        AccountJson.keys(j, "uncertain_keys", d.account().affectedKeys());
        j.name("lost_windows").beginArray();
        for (LostWindows.Window w : d.lostWindows()) {
            j.beginObject().field("offset", w.offset()).field("from_revision", w.from()).field("to_revision", w.to()).name("written_around").beginObject();
            w.writtenAround().forEach((r, n) -> j.field(r, n));
            j.endObject().endObject();
        }
        j.endArray();
        j.name("signatures").beginArray();
        for (Diagnosis.Signature g : d.signatures()) j.beginObject().field("name", g.name()).field("explanation", g.explanation()).endObject();
        j.endArray().name("next").beginArray();
        d.next().forEach(j::value);
        j.endArray();
        return j.field("verdict", d.verdict().label()).field("exit_code", d.exitCode().code()).endObject().toString();
    }
}
