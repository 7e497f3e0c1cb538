package dev.walkit.cli.render;

import dev.walkit.cli.Json;
import dev.walkit.cli.KeyText;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.assess.Meaning;
import dev.walkit.format.account.Account;
import dev.walkit.format.account.Drop;
import dev.walkit.format.replay.DamageLocator;
import dev.walkit.format.replay.RevisionAccount;

import java.util.Base64;
import java.util.List;

/**
 * The one JSON shape of each part of the {@link Account}: its facts, a damaged span, a finding, a drop, the revisions'
 * account, a list of keys. Every tool's document writes these through here, so a finding has the same fields
 * wherever it is printed (docs/schema/).
 */
public final class AccountJson {
    private AccountJson() {
    }

    /** What was read: path, store, format, bytes, records, transactions, revisions, and (after a replay) the state's counts. */
    public static Json facts(Json j, Account a) {
        return facts(j, a, true);
    }

    /** {@link #facts(Json, Account)}; {@code leases} false leaves the lease count out (walverify counts none). */
    public static Json facts(Json j, Account a, boolean leases) {
        j.field("path", a.store().path().toString()).field("store", a.store().kind().label()).field("format", a.store().formatLabel())
                .field("bytes", a.store().bytes()).field("records", a.records()).field("transactions", a.transactions())
                .fieldOrNull("first_revision", a.firstRevision()).fieldOrNull("last_revision", a.lastRevision())
                .fieldOrNull("compact_revision", a.compactRevision()).fieldOrNull("live_keys", a.liveKeys())
                .fieldOrNull("tombstones", a.tombstones());
        if (leases) j.fieldOrNull("leases", a.leases());
        if (!a.store().isWal()) j.field("store_detail", a.store().detail());
        return j;
    }

    /** The lists: the store's own damage, damaged spans, findings, and (after a replay) the revisions, drops and affected keys. */
    public static Json lists(Json j, Account a) {
        j.name("store_damage").beginArray();
        for (String d : a.store().damage()) j.value(d);
        j.endArray().name("damage").beginArray();
        for (DamageLocator.Located d : a.damage()) span(j, d, a);
        j.endArray().name("findings").beginArray();
        for (Finding f : a.findings()) finding(j, f);
        j.endArray();
        // A listing capped for display says how many it left out: the counts and decisions are of every finding.
        if (a.findingsLeftOut() > 0) j.field("findings_left_out", a.findingsLeftOut());
        if (a.replayed()) {
            revisions(j, a.revisions());
            j.name("dropped_transactions").beginArray();
            for (Drop d : a.drops()) drop(j, d);
            j.endArray();
            keys(j, "affected_keys", a.affectedKeys());
        }
        return j;
    }

    /** A damaged span as an object (also a --jsonl line: told as found, before the log's verdict is known). */
    public static Json span(Json j, DamageLocator.Located d) {
        return span(j, d, null);
    }

    /** A damaged span of the account {@code a} as an object, its meaning the one it has in a log of that verdict. */
    public static Json span(Json j, DamageLocator.Located d, Account a) {
        DamageSpan s = d.span();
        j.beginObject().field("type", "damage").field("offset", s.offset()).field("length", s.length()).field("kind", s.kind().label());
        j.field("detail", s.describe());
        if (s.storedCrc() >= 0) j.field("stored_crc", String.format("%08x", s.storedCrc())).field("computed_crc", String.format("%08x", s.computedCrc()));
        if (s.crcRange() != null) j.field("crc_range", s.crcRange().label()).field("records", s.records()).field("data_intact", true);
        j.fieldOrNull("revision_before", d.revisionBefore()).fieldOrNull("revision_after", d.revisionAfter());
        return j.field("meaning", a == null ? Meaning.of(s.kind()) : Meaning.of(s.kind(), a.verdict())).endObject();
    }

    /** A finding as an object (also a --jsonl line). */
    public static Json finding(Json j, Finding f) {
        j.beginObject().field("type", "finding").field("kind", f.kind().label()).field("offset", f.offset()).field("length", f.length())
                .fieldOrNull("revision", f.revision()).field("records_dropped", f.records()).field("detail", f.detail());
        if (f.key() != null) j.field("key", KeyText.quote(f.key())).field("key_base64", Base64.getEncoder().encodeToString(f.key()));
        return j.field("meaning", Meaning.of(f.kind())).endObject();
    }

    /** A dropped transaction: where, its revision, its records, why, and its keys. */
    public static Json drop(Json j, Drop d) {
        j.beginObject().field("offset", d.offset()).fieldOrNull("revision", d.revision()).field("records", d.records())
                .field("reason", reason(d)).field("why", d.reason().text());
        keys(j, "keys", d.keys());
        return j.endObject();
    }

    /** A drop's reason as a word: the finding's kind, or the policy's. */
    static String reason(Drop d) {
        if (d.reason().finding() != null) return d.reason().finding().kind().label();
        return d.reason() instanceof dev.walkit.format.replay.DropReason.AfterToRevision ? "after-to-revision" : "after-first-damage";
    }

    /** Where the revisions went (docs/format.md, "Counting revisions"): {@code revisions}. */
    public static Json revisions(Json j, RevisionAccount a) {
        return j.name("revisions").beginObject().field("first", a.base() + 1).field("last", a.top()).field("applied", a.applied())
                .field("dropped", a.dropped()).field("damaged_up_to", a.damagedUpTo()).field("skipped", a.skipped()).endObject();
    }

    /** Keys quoted as in text under {@code name}, and as base64 (etcdctl -w json's form) under {@code name_base64}. */
    public static Json keys(Json j, String name, List<byte[]> keys) {
        j.name(name).beginArray();
        for (byte[] k : keys) j.value(KeyText.quote(k));
        j.endArray().name(name + "_base64").beginArray();
        for (byte[] k : keys) j.value(Base64.getEncoder().encodeToString(k));
        return j.endArray();
    }
}
