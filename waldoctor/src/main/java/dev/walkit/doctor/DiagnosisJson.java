package dev.walkit.doctor;

import dev.walkit.cli.Json;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w json}: one document (schema {@value Diagnosis#SCHEMA}). */
final class DiagnosisJson implements DiagnosisPrinter {
    @Override
    public void print(PrintWriter out, Diagnosis d) {
        out.println(json(d));
    }

    static String json(Diagnosis d) {
        Diagnosis.Facts f = d.facts();
        Json j = new Json().beginObject().field("schema", Diagnosis.SCHEMA).field("path", f.path()).field("store", f.store()).field("format", f.format())
                .field("bytes", f.bytes()).field("records", f.records()).field("transactions", f.transactions())
                .fieldOrNull("first_revision", f.firstRevision()).field("last_revision", f.revision()).field("compact_revision", f.compactRevision())
                .field("live_keys", f.liveKeys()).field("tombstones", f.tombstones()).field("leases", f.leases());
        j.name("writes_per_tenth").beginArray();
        for (long w : d.writesPerTenth()) j.value(w);
        j.endArray().name("resources").beginArray();
        for (Diagnosis.Resource r : d.resources()) {
            j.beginObject().field("resource", r.name()).field("live_keys", r.liveKeys()).field("live_bytes", r.liveBytes()).field("writes", r.writes()).endObject();
        }
        j.endArray().name("largest_values").beginArray();
        for (Diagnosis.Largest l : d.largest()) j.beginObject().field("key", l.key()).field("bytes", l.bytes()).endObject();
        j.endArray().name("store_damage").beginArray();
        for (String x : d.storeDamage()) j.value(x);
        j.endArray().name("damage").beginArray();
        for (DamageLocator.Located l : d.damage()) {
            DamageSpan s = l.span();
            j.beginObject().field("offset", s.offset()).field("length", s.length()).field("kind", s.kind().label()).field("detail", s.describe())
                    .fieldOrNull("revision_before", l.revisionBefore()).fieldOrNull("revision_after", l.revisionAfter()).endObject();
        }
        j.endArray().name("findings").beginArray();
        for (Finding x : d.findings()) {
            j.beginObject().field("kind", x.kind().label()).field("offset", x.offset()).fieldOrNull("revision", x.revision()).field("detail", x.detail()).endObject();
        }
        j.endArray().name("revisions").beginObject().field("first", d.account().base() + 1).field("last", d.account().top())
                .field("applied", d.account().applied()).field("dropped", d.account().dropped()).field("damaged_up_to", d.account().damagedUpTo())
                .field("skipped", d.account().skipped()).endObject();
        j.name("dropped_transactions").beginArray();
        for (LogIndex.Dropped x : d.dropped()) {
            j.beginObject().field("offset", x.offset()).field("revision", x.revision()).field("why", x.why()).name("keys").beginArray();
            x.keys().forEach(j::value);
            j.endArray().endObject();
        }
        j.endArray().name("uncertain_keys").beginArray();
        d.uncertainKeys().forEach(j::value);
        j.endArray().name("signatures").beginArray();
        for (Diagnosis.Signature g : d.signatures()) j.beginObject().field("name", g.name()).field("explanation", g.explanation()).endObject();
        j.endArray().name("next").beginArray();
        d.next().forEach(j::value);
        j.endArray();
        return j.field("verdict", d.verdict().label()).field("exit_code", d.exitCode().code()).endObject().toString();
    }
}
