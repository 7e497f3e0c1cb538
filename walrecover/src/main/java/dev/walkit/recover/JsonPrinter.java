package dev.walkit.recover;

import dev.walkit.cli.Json;
import dev.walkit.cli.render.AccountJson;

import java.io.PrintWriter;

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
        j.name("input").beginObject();
        if (r.account() != null) AccountJson.facts(j, r.account());
        else j.field("path", r.input().toString()).field("format", r.format() == null ? null : r.format().label()).field("bytes", r.inputBytes());
        j.endObject();
        j.field("kept_transactions", r.keptTransactions()).field("kept_records", r.keptRecords()).field("dropped_transactions", r.droppedTransactions());
        j.name("dropped").beginArray();
        if (r.account() != null) r.account().drops().stream().limit(RecoveryReport.MAX_LISTED).forEach(d -> AccountJson.drop(j, d));
        j.endArray().name("damage").beginArray();
        if (r.account() != null) r.account().damage().forEach(d -> AccountJson.span(j, d, r.account()));
        j.endArray().name("findings").beginArray();
        if (r.account() != null) r.account().findings().forEach(f -> AccountJson.finding(j, f));
        j.endArray();
        if (r.account() != null) {
            AccountJson.revisions(j, r.account().revisions());
            AccountJson.keys(j, "affected_keys", r.account().affectedKeys());
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
                j.beginObject().field("change", l.change()).field("key", dev.walkit.cli.KeyText.quote(l.key()))
                        .field("key_base64", java.util.Base64.getEncoder().encodeToString(l.key())).field("revision", l.revision()).endObject();
            }
            j.endArray();
            j.name("output").beginObject().field("store", o.store().label()).field("path", r.output() == null ? null : r.output().toString()).field("bytes", r.outputBytes())
                    .field("checksum_algorithm", o.checksum().label()).field("checksum", r.outputChecksum())
                    .field("old_files_kept_as_suffix", r.keptAs()).field("note", r.storeNote()).endObject();
        }
        return j.endObject().toString();
    }
}
