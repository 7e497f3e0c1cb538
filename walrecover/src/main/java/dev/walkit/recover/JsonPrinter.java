package dev.walkit.recover;

import dev.walkit.cli.Json;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** {@code -w json} and {@code --report FILE}: one document (schema {@value WalRecover#SCHEMA}). */
final class JsonPrinter implements RecoveryPrinter {
    @Override
    public void print(PrintWriter out, RecoveryReport r) {
        out.println(json(r));
    }

    static String json(RecoveryReport r) {
        RecoveryOptions o = r.options();
        Json j = new Json().beginObject().field("schema", WalRecover.SCHEMA).field("policy", o.policy().label()).field("dry_run", o.dryRun())
                .field("form", r.form()).field("form_why", r.formWhy());
        j.name("input").beginObject().field("path", r.input().toString()).field("format", r.format() == null ? null : r.format().label())
                .field("bytes", r.inputBytes()).field("records", r.inputRecords()).endObject();
        j.field("kept_transactions", r.keptTransactions()).field("kept_records", r.keptRecords()).field("dropped_transactions", r.droppedTransactions());
        j.name("dropped").beginArray();
        for (RecoveryReport.Dropped d : r.dropped()) {
            j.beginObject().field("offset", d.offset()).field("revision", d.revision()).field("records", d.records()).field("why", d.why()).endObject();
        }
        j.endArray().name("damage").beginArray();
        for (DamageSpan d : r.damage()) j.beginObject().field("offset", d.offset()).field("length", d.length()).field("kind", d.kind().label()).endObject();
        j.endArray().name("findings").beginArray();
        for (Finding f : r.findings()) j.beginObject().field("kind", f.kind().label()).field("offset", f.offset()).field("revision", f.revision()).field("detail", f.detail()).endObject();
        j.endArray();
        if (r.revisions() != null) {
            var a = r.revisions();
            j.name("revisions").beginObject().field("first", a.base() + 1).field("last", a.top()).field("applied", a.applied())
                    .field("dropped", a.dropped()).field("damaged_up_to", a.damagedUpTo()).field("skipped", a.skipped()).endObject();
        }
        j.name("cleaned_up").beginArray();
        r.cleanedUp().forEach(j::value);
        j.endArray();
        j.name("refused").value(r.refused());
        if (r.refused() == null) {
            j.field("final_revision", r.finalRevision()).field("compact_revision", r.compactRevision()).field("live_keys", r.liveKeys())
                    .field("state_digest", r.stateDigest());
            j.name("leases").beginObject().field("count", r.leases().keysByLease().size()).field("next_lease_id", r.leases().nextLeaseId())
                    .field("ttl_seconds", r.leases().ttlSeconds()).endObject();
            j.name("loss").beginArray();
            for (RecoveryReport.Loss l : r.loss()) {
                j.beginObject().field("change", l.change()).field("key", new String(l.key(), StandardCharsets.UTF_8)).field("revision", l.revision()).endObject();
            }
            j.endArray();
            j.name("output").beginObject().field("path", r.output() == null ? null : r.output().toString()).field("bytes", r.outputBytes())
                    .field("checksum_algorithm", o.checksum().label()).field("checksum", r.outputChecksum())
                    .field("old_files_kept_as_suffix", r.keptAs()).endObject();
        }
        return j.endObject().toString();
    }
}
