package dev.walkit.verify;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Meaning;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;

/** {@code -w json}: one document (schema {@value WalVerify#SCHEMA}); its parts are also --jsonl's lines. */
final class JsonPrinter implements VerifyPrinter {
    @Override
    public void print(PrintWriter out, VerifyReport r, ExitCode code) {
        out.println(summary(r, code, true));
    }

    /** A damaged span as a JSON object (a --jsonl line). */
    static Json damage(Json j, DamageLocator.Located d) {
        DamageSpan s = d.span();
        j.beginObject().field("type", "damage").field("offset", s.offset()).field("length", s.length()).field("kind", s.kind().label());
        j.field("detail", s.detail());
        if (s.storedCrc() >= 0) j.field("stored_crc", String.format("%08x", s.storedCrc())).field("computed_crc", String.format("%08x", s.computedCrc()));
        if (s.crcRange() != null) j.field("crc_range", s.crcRange().label()).field("records", s.records()).field("data_intact", true);
        j.fieldOrNull("revision_before", d.revisionBefore()).fieldOrNull("revision_after", d.revisionAfter());
        return j.field("meaning", Meaning.of(s.kind())).endObject();
    }

    /** A finding as a JSON object (a --jsonl line). */
    static Json finding(Json j, Finding f) {
        return j.beginObject().field("type", "finding").field("kind", f.kind().label()).field("offset", f.offset()).field("length", f.length())
                .fieldOrNull("revision", f.revision()).field("records_dropped", f.records()).field("detail", f.detail())
                .field("meaning", Meaning.of(f.kind())).endObject();
    }

    /** Damage of an etcd db's or kine db's own format (a --jsonl line; -w json's store_damage holds the details). */
    static Json storeDamage(Json j, String store, String detail) {
        return j.beginObject().field("type", "store_damage").field("store", store).field("detail", detail).endObject();
    }

    /** The report: with the lists (-w json) or their counts only (--jsonl's last line). */
    static String summary(VerifyReport r, ExitCode code, boolean withLists) {
        Json j = new Json().beginObject().field("schema", WalVerify.SCHEMA);
        if (!withLists) j.field("type", "summary");
        j.field("path", r.path().toString()).field("store", r.store()).field("format", r.isWal() ? r.format().label() : r.store()).field("level", r.level().name().toLowerCase(java.util.Locale.ROOT))
                .field("bytes", r.bytes()).field("records", r.records()).field("transactions", r.transactions())
                .fieldOrNull("first_revision", r.firstRevision()).fieldOrNull("last_revision", r.lastRevision())
                .fieldOrNull("compact_revision", r.compactRevision()).fieldOrNull("live_keys", r.liveKeys())
                .fieldOrNull("tombstones", r.tombstones());
        j.name("leftover_compaction").value(r.leftoverCompaction() == null ? null : r.leftoverCompaction().toString());
        j.fieldOrNull("grew_to", r.grewTo());
        if (withLists) {
            j.name("store_damage").beginArray();
            for (String d : r.storeDamage()) j.value(d);
            j.endArray();
            j.name("damage").beginArray();
            for (DamageLocator.Located d : r.damage()) damage(j, d);
            j.endArray();
            j.name("findings").beginArray();
            for (Finding f : r.findings()) finding(j, f);
            j.endArray();
        } else {
            j.field("damage_count", r.damage().size() + r.storeDamage().size()).field("finding_count", r.findings().size());
        }
        return j.field("verdict", r.verdict()).field("exit_code", code.code()).endObject().toString();
    }
}
