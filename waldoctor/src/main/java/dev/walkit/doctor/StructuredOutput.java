package dev.walkit.doctor;

import dev.walkit.format.pass.StoreHistory;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.Json;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.Table;
import dev.walkit.format.KeyValue;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * {@code -w json} and {@code -w table} of the one-shot commands that return keys: {@code get},
 * {@code range} and {@code history} (the shell and the other commands print lines). Values as hex,
 * secrets redacted unless {@code --show-secrets}, Kubernetes objects named.
 */
final class StructuredOutput {
    static final String SCHEMA = "walkit.waldoctor.kv/v1";

    /** The one-shot commands with every format; the others print lines only. */
    static final Set<String> COMMANDS = Set.of("get", "range", "history", "leases");
    /** The leases document's schema (docs/schema/waldoctor.leases.schema.json). */
    static final String LEASES_SCHEMA = "walkit.waldoctor.leases/v1";

    static OutputFormat[] formats(String command) {
        return COMMANDS.contains(command) ? OutputFormat.common() : new OutputFormat[] {OutputFormat.SIMPLE};
    }

    private StructuredOutput() {
    }

    /** Runs {@code command} with {@code words} (its arguments) and prints it as {@code format}; the exit code. */
    static int run(String command, ShellContext ctx, List<String> words, OutputFormat format, PrintWriter out, PrintWriter err) {
        String name = "waldoctor " + command;
        if (command.equals("leases")) return leases(ctx, words, format, out, err);
        // The options of the command's line in the table: the same in every format.
        Args a = Commands.parse(command, words);
        // etcdctl's get KEY --prefix / --from-key: the range's document.
        boolean ranged = command.equals("range") || command.equals("get") && (a.has("--prefix") || a.has("--from-key"));
        boolean keyed = !ranged;
        if (a.error() != null || (keyed ? a.positional().size() != 1 : a.positional().size() > 1)) {
            err.println(name + ": usage: " + Commands.table().get(command).usage() + (a.error() == null ? "" : " (" + a.error() + ")"));
            return ExitCode.USAGE.code();
        }
        long rev = Commands.latestIfZero(a.number("--rev", Long.MAX_VALUE));
        long limit = a.number("--limit", 0);
        String problem = Commands.revisionProblem(ctx, rev);
        if (problem != null) {
            err.println(name + ": " + problem);
            return ExitCode.NOT_FOUND.code();
        }
        List<KeyValue> kvs = new ArrayList<>();
        boolean more = false;
        String key = a.positional().isEmpty() ? "" : a.positional().get(0);
        switch (ranged ? "range" : command) {
            case "get" -> {
                KeyValue kv = ctx.index.get(Commands.keyBytes(key), rev);
                if (kv != null) kvs.add(kv);
            }
            case "history" -> {
                List<KeyValue> events = ctx.index.events(Commands.keyBytes(key));
                if (events != null) {
                    // --limit N: the latest N, as the text form shows them.
                    more = limit > 0 && events.size() > limit;
                    kvs.addAll(more ? events.subList(events.size() - (int) limit, events.size()) : events);
                }
            }
            default -> {
                // A keys-only answer reads no value.
                long all = Commands.liveRange(ctx, key, a.has("--from-key"), rev, limit, !a.has("--keys-only"), kvs::add);
                more = all > kvs.size();
            }
        }
        boolean keysOnly = a.has("--keys-only");
        if (keyed && kvs.isEmpty()) {
            // As etcdctl get -w json: a document that holds no key (count 0), and the not-found line and code besides.
            if (format == OutputFormat.JSON) {
                out.println(new Json().beginObject().field("schema", SCHEMA).field("command", command)
                        .field("revision", rev == Long.MAX_VALUE ? ctx.index.revision() : rev).name("kvs").beginArray().endArray()
                        .field("count", 0).field("more", false).endObject());
                out.flush();
            }
            err.println(name + ": key not found: " + key);
            return ExitCode.NOT_FOUND.code();
        }
        if (format == OutputFormat.JSON) {
            Json j = new Json().beginObject().field("schema", SCHEMA).field("command", command)
                    .field("revision", rev == Long.MAX_VALUE ? ctx.index.revision() : rev);
            j.name("kvs").beginArray();
            for (KeyValue kv : kvs) kvJson(j, kv, keysOnly, ctx.showSecrets, ctx.index.versionIsLowerBound(kv));
            j.endArray().field("count", kvs.size()).field("more", more);
            out.println(j.endObject());
        } else {
            Table t = keysOnly ? new Table("key") : new Table("key", "op", "mod rev", "create rev", "version", "lease", "value");
            for (KeyValue kv : kvs) {
                String k = dev.walkit.cli.KeyText.quote(kv.key());
                if (keysOnly) t.row(k);
                else if (kv.isDelete()) t.row(k, "DELETE", kv.modRevision(), null, null, null, null);
                else t.row(k, "PUT", kv.modRevision(), kv.createRevision(), Commands.shortVersion(ctx.index, kv), kv.lease(),
                        ValueView.summary(k, kv.value(), ctx.showSecrets));
            }
            t.print(out);
            if (more) out.println("… (--limit " + limit + ")");
        }
        out.flush();
        return ExitCode.OK.code();
    }

    private static void kvJson(Json j, KeyValue kv, boolean keysOnly, boolean showSecrets, boolean versionLowerBound) {
        String key = dev.walkit.cli.KeyText.quote(kv.key());
        j.beginObject().field("key", key).field("key_base64", java.util.Base64.getEncoder().encodeToString(kv.key()));
        if (keysOnly) {
            j.endObject();
            return;
        }
        j.field("type", kv.isDelete() ? "DELETE" : "PUT").field("mod_revision", kv.modRevision());
        if (!kv.isDelete()) {
            boolean redact = key.startsWith(ValueView.SECRETS) && !showSecrets;
            j.field("create_revision", kv.createRevision()).field("version", kv.version());
            // kine keeps no version: where its compaction removed the key's create row, the version is a lower bound.
            if (versionLowerBound) j.field("version_lower_bound", true);
            j.field("lease", kv.lease()).field("value_bytes", kv.value().length);
            if (redact) j.field("value_redacted", true);
            else j.field("value_hex", HexFormat.of().formatHex(kv.value()));
            ValueView.K8sObject o = redact ? null : ValueView.k8s(kv.value());
            if (o != null) {
                j.name("kubernetes").beginObject().field("apiVersion", o.apiVersion()).field("kind", o.kind()).field("namespace", o.namespace())
                        .field("name", o.name()).endObject();
            }
        }
        j.endObject();
    }

    /**
     * {@code leases -w json|table}: each lease with its ID (and in hex, 16 digits, as etcdctl prints it), its granted
     * TTL where the store keeps one (etcd's lease bucket; kine's lease is its TTL; a WAL keeps none: null), and its live
     * keys.
     */
    private static int leases(ShellContext ctx, List<String> words, OutputFormat format, PrintWriter out, PrintWriter err) {
        if (!words.isEmpty()) {
            err.println("waldoctor leases: usage: " + Commands.table().get("leases").usage());
            return ExitCode.USAGE.code();
        }
        var m = ctx.index.leaseMetadata();
        StoreHistory.EtcdFacts etcd = ctx.index.source().etcd();
        boolean kine = ctx.index.source().kind() == dev.walkit.format.account.Store.Kind.KINE;
        java.util.Map<Long, Long> ttl = new java.util.TreeMap<>();
        if (etcd != null) ttl.putAll(etcd.leases());
        else m.keysByLease().keySet().forEach(id -> ttl.put(id, kine ? id : null));
        if (format == OutputFormat.JSON) {
            Json j = new Json().beginObject().field("schema", LEASES_SCHEMA).field("command", "leases").field("revision", ctx.index.revision());
            j.name("leases").beginArray();
            ttl.forEach((id, t) -> {
                j.beginObject().field("id", id).field("id_hex", dev.walkit.cli.LeaseId.text(id));
                if (t == null) j.name("ttl_seconds").nullValue();
                else j.field("ttl_seconds", t);
                j.field("live_keys", (long) m.keysByLease().getOrDefault(id, 0)).endObject();
            });
            j.endArray().field("count", ttl.size());
            out.println(j.endObject());
        } else {
            Table t = new Table("lease", "decimal", "ttl", "live keys");
            ttl.forEach((id, x) -> t.row(dev.walkit.cli.LeaseId.text(id), id, x == null ? null : x + "s", m.keysByLease().getOrDefault(id, 0)));
            t.print(out);
        }
        out.flush();
        return ExitCode.OK.code();
    }
}
