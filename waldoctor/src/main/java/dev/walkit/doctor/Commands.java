package dev.walkit.doctor;

import dev.walkit.format.pass.StoreHistory;
import dev.walkit.cli.Revision;
import dev.walkit.cli.render.AccountText;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalReader;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The one command table of waldoctor: the REPL and the one-shot commands both run these. */
public final class Commands {
    private Commands() {
    }

    @FunctionalInterface
    interface Body {
        ShellCommand.Outcome run(ShellContext ctx, Args a, PrintWriter out);
    }

    private record Cmd(String name, String usage, String help, Set<String> valued, Set<String> switches, boolean keyArg, Body body)
            implements ShellCommand {
        @Override
        public Outcome run(ShellContext ctx, Args args, PrintWriter out) {
            return body.run(ctx, args, out);
        }

        @Override
        public List<String> complete(ShellContext ctx, List<String> before, String word) {
            if (word.startsWith("--")) {
                List<String> opts = new ArrayList<>(valued);
                opts.addAll(switches);
                return opts.stream().filter(o -> o.startsWith(word)).sorted().toList();
            }
            if (keyArg && before.stream().noneMatch(w -> !w.startsWith("--"))) return completeKey(ctx, word);
            return List.of();
        }
    }

    /** Completes a key one path segment at a time, like a file system: /registry/po → /registry/pods/. */
    static List<String> completeKey(ShellContext ctx, String prefix) {
        List<byte[]> keys = ctx.index.keys(keyBytes(prefix));
        TreeSet<String> out = new TreeSet<>();
        for (int k = 0, to = keys.size(); k < to; k++) {
            out.add(segment(dev.walkit.cli.KeyText.quote(keys.get(k)), prefix));
            if (out.size() > 500) {
                // Capped: the last one too, so that what the line reader inserts (the candidates' common prefix)
                // is the common prefix of every key under the prefix (in a sorted set, that of its first and last),
                // not of the first 500 (pod-0.… of 191,819 events).
                out.add(segment(dev.walkit.cli.KeyText.quote(keys.get(to - 1)), prefix));
                break;
            }
        }
        return new ArrayList<>(out);
    }

    /** {@code key} up to the end of its path segment after {@code prefix} (with the slash), or whole. */
    private static String segment(String key, String prefix) {
        int slash = key.indexOf('/', prefix.length());
        return slash < 0 ? key : key.substring(0, slash + 1);
    }

    private static final Map<String, ShellCommand> TABLE = new LinkedHashMap<>();

    private static void add(String name, String usage, String help, Set<String> valued, Set<String> switches, boolean keyArg, Body body) {
        TABLE.put(name, new Cmd(name, usage, help, valued, switches, keyArg, body));
    }

    public static Map<String, ShellCommand> table() {
        return TABLE;
    }

    static {
        add("stats", "stats", "what the log is: format, size, records, transactions, revisions, keys, damage", Set.of(), Set.of(), false, Commands::stats);
        add("get", "get KEY [--rev R] [-o json|yaml] [--prefix|--from-key [--limit N] [--keys-only]] [--print-value-only]",
                "a key's value and fields, at the latest revision or at R; -o: the object decoded whole (a Kubernetes protobuf object, or JSON), "
                + "as auger decodes it; as etcdctl get: --prefix the keys under KEY (range), --from-key every key from KEY on, "
                + "--print-value-only the values alone", Set.of("--rev", "--output", "--limit"),
                Set.of("--prefix", "--from-key", "--keys-only", "--print-value-only"), true, Commands::get);
        add("range", "range PREFIX [--rev R] [--limit N] [--keys-only|--print-value-only]", "keys under a prefix", Set.of("--rev", "--limit"),
                Set.of("--keys-only", "--print-value-only"), true, Commands::range);
        add("history", "history KEY [--limit N] [-o json|yaml]", "every put and delete of a key with its revision and the previous value (the latest N); "
                + "-o: each version's object decoded whole", Set.of("--limit", "--output"), Set.of(), true, Commands::history);
        add("at", "at R|latest", "view the state at revision R (\"compacted\" below the compact revision)", Set.of(), Set.of(), false, Commands::at);
        add("diff", "diff R1 R2 [KEY] [--limit N]", "keys created, changed and deleted between two revisions; with KEY, its object's fields "
                + "that changed (decoded whole, as get -o does)", Set.of("--limit"), Set.of(), false, Commands::diff);
        add("leases", "leases", "rebuilt leases: each lease ID (16 hex digits, as etcdctl prints it) and its live keys", Set.of(), Set.of(), false, Commands::leases);
        add("lease", "lease ID [--limit N]", "the live keys attached to a lease; ID in hex as etcdctl reads it (digits too: 7000 is 0x7000)",
                Set.of("--limit"), Set.of(), false, Commands::lease);
        add("txn", "txn R", "the records of the transaction at revision R", Set.of(), Set.of(), false, Commands::txn);
        add("records", "records [--from OFFSET] [--limit N] [--follow [--idle-exit S]]", "records and damaged spans as the reader sees them; "
                + "one-shot with --follow, those appended to a live WAL as they come (from --from, else its end), until ^C",
                Set.of("--from", "--limit", "--idle-exit"), Set.of("--follow"), false, Commands::records);
        add("hexdump", "hexdump OFFSET [LEN]", "raw bytes of the file", Set.of(), Set.of(), false, Commands::hexdump);
        add("damage", "damage", "damaged spans and findings, with the revisions around them", Set.of(), Set.of(), false, Commands::damage);
        add("help", "help [COMMAND]", "this list", Set.of(), Set.of(), false, Commands::help);
        add("quit", "quit", "leave the shell (also: exit, \\q, Ctrl-D)", Set.of(), Set.of(), false, (c, a, o) -> ShellCommand.Outcome.QUIT);
    }

    /**
     * Index in {@code words} of the first word that is neither an option of the command {@code name} nor an option's value
     * (one-shot commands take their options anywhere: {@code waldoctor get --rev 5 PATH KEY}), or -1.
     */
    static int firstPositional(String name, List<String> words) {
        Cmd c = (Cmd) TABLE.get(name);
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (c != null && c.valued().contains(w)) i++;
            else if (!(c != null && c.switches().contains(w)) && !(w.startsWith("--") && w.contains("=") && c != null && c.valued().contains(w.substring(0, w.indexOf('='))))) return i;
        }
        return -1;
    }

    /** The command a mistyped name most likely meant (a prefix either way, or one edit away), or null. */
    static String nearest(String typed) {
        return dev.walkit.cli.Nearest.of(typed, TABLE.keySet());
    }

    /** Runs one command line; prints errors as {@code error: …}. */
    public static ShellCommand.Outcome execute(ShellContext ctx, List<String> words, PrintWriter out) {
        if (words.isEmpty()) return ShellCommand.Outcome.OK;
        String name = words.get(0).equals("exit") || words.get(0).equals("\\q") ? "quit" : words.get(0);
        ShellCommand c = TABLE.get(name);
        if (c == null) {
            String near = nearest(name);
            return error(out, "unknown command '" + words.get(0) + "'" + (near == null ? " (try 'help')" : ": did you mean '" + near + "'? (try 'help')"));
        }
        Cmd cmd = (Cmd) c;
        Args a = Args.parse(words.subList(1, words.size()), cmd.valued(), cmd.switches());
        if (a.error() != null) return usage(out, a.error() + "; usage: " + cmd.usage());
        return cmd.run(ctx, a, out);
    }

    /** The words of command {@code name}'s line parsed with its options in the table. */
    static Args parse(String name, List<String> words) {
        Cmd c = (Cmd) TABLE.get(name);
        return Args.parse(words, c.valued(), c.switches());
    }

    /** Prints a wrong command line's {@code error: …}. */
    static ShellCommand.Outcome usage(PrintWriter out, String msg) {
        say(out, msg);
        return ShellCommand.Outcome.USAGE;
    }

    static ShellCommand.Outcome error(PrintWriter out, String msg) {
        say(out, msg);
        return ShellCommand.Outcome.ERROR;
    }

    /** An error where the shell sends errors ({@link ShellOut}); elsewhere {@code error: …} with the answers. */
    private static void say(PrintWriter out, String msg) {
        if (out instanceof ShellOut s) s.error(msg);
        else out.println("error: " + msg);
    }

    /** The revision to read at: --rev, else the view's; an error when past the end or below the compact revision. */
    private static long revisionFor(ShellContext ctx, Args a, PrintWriter out) {
        long r = latestIfZero(a.number("--rev", ctx.viewRevision));
        if (a.error() != null) {
            error(out, a.error());
            return -1;
        }
        String problem = revisionProblem(ctx, r);
        if (problem != null) {
            error(out, problem);
            return -1;
        }
        if (r != ctx.viewRevision) lostNote(ctx, r, out);
        return r;
    }

    /**
     * Where revision {@code r} lies in damaged bytes, in words, or null: a damaged span of the account whose revisions
     * on either side leave {@code r} between them (up to that many revisions lost), so that a view at {@code r} is
     * the state after the revision before the span, and a transaction of {@code r}, if there was one, is gone.
     */
    static String lostWindow(ShellContext ctx, long r) {
        for (dev.walkit.format.replay.DamageLocator.Located l : ctx.index.account().damage()) {
            if (l.revisionBefore() >= 0 && l.revisionAfter() > l.revisionBefore() + 1 && r > l.revisionBefore() && r < l.revisionAfter()) {
                return String.format("revision %d lies in damaged bytes (%s at offset %,d, %s)", r, l.span().kind().label(), l.span().offset(),
                        Revision.where(l.revisionBefore(), l.revisionAfter()));
            }
        }
        return null;
    }

    /** A note when {@code r} lies in damaged bytes: what is shown is the state after the revision before them. */
    private static void lostNote(ShellContext ctx, long r, PrintWriter out) {
        String lost = lostWindow(ctx, r);
        if (lost != null) out.println("note: " + lost + ": what is shown is the state as of the revision before it");
    }

    /** {@code --rev 0} is the latest revision, as etcdctl takes it. */
    static long latestIfZero(long r) {
        return r == 0 ? Long.MAX_VALUE : r;
    }

    /**
     * Why revision {@code r} ({@link Long#MAX_VALUE}: the latest) cannot be read, or null: past the end of the log (etcd:
     * "a future revision"), or below the compact revision (etcd: "compacted"). Every command that reads at a revision,
     * in the shell and one-shot in every format, asks this.
     */
    static String revisionProblem(ShellContext ctx, long r) {
        long current = ctx.index.revision();
        if (r != Long.MAX_VALUE && r > current) return "revision " + r + " is past the end of the log (its last revision is " + current + ")";
        long compact = ctx.index.compactRevision();
        if (r < compact) return "revision " + r + " is compacted (compact revision " + compact + ")";
        return null;
    }

    private static ShellCommand.Outcome stats(ShellContext ctx, Args a, PrintWriter out) {
        dev.walkit.format.account.Account acc = ctx.index.account();
        out.printf("%s%n%s%n%s%n", AccountText.what(acc), AccountText.read(acc), AccountText.state(acc));
        out.printf("damage: %s%n", AccountText.damageSummary(acc));
        out.printf("%s%n", acc.revisions().text());
        out.printf("verdict: %s%n", acc.verdict().label());
        if (ctx.viewRevision != Long.MAX_VALUE) out.printf("viewing revision %d%n", ctx.viewRevision);
        return ShellCommand.Outcome.OK;
    }

    /** A version as a fact, or {@code ≥2 (a lower bound: …)} where the store does not know it ({@link StoreHistory#versionIsLowerBound}). */
    static String versionText(StoreHistory index, KeyValue kv) {
        return index.versionIsLowerBound(kv) ? "\u2265" + kv.version() + " (a lower bound: kine keeps no version, and its compaction removed this key's create row)"
                : String.valueOf(kv.version());
    }

    /** {@code 3}, or {@code ≥3} where it is a lower bound. */
    static String shortVersion(StoreHistory index, KeyValue kv) {
        return (index.versionIsLowerBound(kv) ? "\u2265" : "") + kv.version();
    }

    static void printKv(ShellContext ctx, String typed, KeyValue kv, PrintWriter out) {
        String key = dev.walkit.cli.KeyText.quote(kv.key()); // the stored key in the one printed form, whatever form was typed
        out.printf("key: %s%ncreate_revision: %d%nmod_revision: %d%nversion: %s%nlease: %s%nvalue:%n%s%n", key, kv.createRevision(),
                kv.modRevision(), versionText(ctx.index, kv), leaseText(kv.lease()), ValueView.render(key, kv.value(), ctx.showSecrets));
    }

    private static ShellCommand.Outcome get(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 1) return usage(out, "usage: get KEY [--rev R] [-o json|yaml] [--prefix|--from-key] [--print-value-only]");
        if (a.has("--prefix") && a.has("--from-key")) return usage(out, "--prefix and --from-key exclude each other");
        if (a.has("--prefix") || a.has("--from-key")) return range(ctx, a, out); // etcdctl get KEY --prefix: the range
        String output = a.get("--output");
        if (output != null && !output.equals("json") && !output.equals("yaml")) return usage(out, "-o takes json or yaml, not '" + output + "'");
        long r = revisionFor(ctx, a, out);
        if (r < 0) return ShellCommand.Outcome.ERROR;
        String key = a.positional().get(0);
        KeyValue kv = ctx.index.get(keyBytes(key), r);
        if (kv == null) {
            return error(out, !ctx.index.ever(keyBytes(key)) ? "key not found: " + key : "key " + key + " is absent at revision " + (r == Long.MAX_VALUE ? "latest" : r));
        }
        if (output != null) {
            String[] why = new String[1];
            String text = ObjectView.render(key, kv.value(), output, ctx.showSecrets, why);
            if (text == null) return error(out, key + " at revision " + kv.modRevision() + " is " + why[0]);
            out.println(text);
            return ShellCommand.Outcome.OK;
        }
        if (a.has("--print-value-only")) {
            out.println(ValueView.render(key, kv.value(), ctx.showSecrets));
            return ShellCommand.Outcome.OK;
        }
        printKv(ctx, key, kv, out);
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome range(ShellContext ctx, Args a, PrintWriter out) {
        String prefix = a.positional().isEmpty() ? "" : a.positional().get(0);
        if (a.has("--keys-only") && a.has("--print-value-only")) return usage(out, "--keys-only and --print-value-only exclude each other");
        long r = revisionFor(ctx, a, out);
        if (r < 0) return ShellCommand.Outcome.ERROR;
        long limit = a.number("--limit", ctx.rows);
        if (limit < 0) return error(out, a.error());
        boolean fromKey = a.has("--from-key");
        boolean keysOnly = a.has("--keys-only");
        boolean valuesOnly = a.has("--print-value-only");
        long[] shown = {0};
        // Printed as read, in key order: a keys-only range reads no value.
        long all = liveRange(ctx, prefix, fromKey, r, limit, !keysOnly, kv -> {
            if (ctx.interrupted) return false;
            String key = dev.walkit.cli.KeyText.quote(kv.key());
            if (keysOnly) out.println(key);
            else if (valuesOnly) out.println(ValueView.render(key, kv.value(), ctx.showSecrets));
            else out.printf("%s  rev %d  %s%n", key, kv.modRevision(), ValueView.summary(key, kv.value(), ctx.showSecrets));
            shown[0]++;
            return true;
        });
        if (ctx.interrupted || valuesOnly) return ShellCommand.Outcome.OK; // the values alone, as etcdctl prints them
        if (all > shown[0]) out.printf("… %,d of %,d keys shown (--limit N shows N, --limit 0 all)%n", shown[0], all);
        else out.printf("%d key(s)%n", all);
        return ShellCommand.Outcome.OK;
    }

    /** The key a command was given, as bytes: the one printed form read back ({@link dev.walkit.cli.KeyText}). */
    static byte[] keyBytes(String typed) {
        return dev.walkit.cli.KeyText.unquote(typed);
    }

    /**
     * The keys live at {@code rev} under {@code prefix} (or from it on, as etcdctl's --from-key), the first {@code limit}
     * (0: all) handed to {@code v} in key order, values read only when asked: how many there are in all. The one range
     * the shell and the one-shot commands ask ({@link StoreHistory#range}).
     */
    static long liveRange(ShellContext ctx, String prefix, boolean fromKey, long rev, long limit, boolean values, StoreHistory.Visitor v) {
        byte[] k = keyBytes(prefix);
        return ctx.index.range(k, fromKey ? new byte[0] : StoreHistory.prefixEnd(k), rev, limit == 0 ? Long.MAX_VALUE : limit, values, v);
    }

    private static ShellCommand.Outcome history(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 1) return usage(out, "usage: history KEY [--limit N] [-o json|yaml]");
        String output = a.get("--output");
        if (output != null && !output.equals("json") && !output.equals("yaml")) return usage(out, "-o takes json or yaml, not '" + output + "'");
        long limit = a.number("--limit", ctx.rows);
        if (limit < 0) return error(out, a.error());
        String key = a.positional().get(0);
        List<KeyValue> events = ctx.index.events(keyBytes(key));
        if (events == null) return error(out, "key not found: " + key);
        KeyValue prev = null;
        long compact = ctx.index.compactRevision();
        if (compact > 0 && events.get(0).modRevision() <= compact) {
            // What the compaction kept: the key's state at it, not how it got there.
            out.printf("(history before revision %d is compacted: the first event shown is the key's state then, its prev_kv unknown)%n", compact + 1);
        }
        if (limit > 0 && events.size() > limit) {
            // The latest: the earlier ones counted, and how to see them.
            int skip = (int) (events.size() - limit);
            out.printf("… %,d earlier event(s) of %,d not shown (--limit N shows N, --limit 0 all)%n", skip, events.size());
            prev = events.get(skip - 1).isDelete() ? null : events.get(skip - 1);
            events = events.subList(skip, events.size());
        }
        // Revisions padded to the widest, so that the operations and the prev_kv lines stay in columns.
        int width = 1;
        for (KeyValue kv : events) width = Math.max(width, Long.toString(kv.modRevision()).length());
        String rev = "rev %-" + width + "d  ";
        String indent = " ".repeat(4 + width + 2 + 9);
        for (KeyValue kv : events) {
            if (ctx.interrupted) return ShellCommand.Outcome.OK;
            String prevText = prev == null ? "none" : "rev " + prev.modRevision() + " " + ValueView.summary(key, prev.value(), ctx.showSecrets);
            if (output != null) {
                // Each version's object whole, headed by its revision; a delete has none.
                out.printf("# rev %d %s%n", kv.modRevision(), kv.isDelete() ? "DELETE" : "PUT version " + shortVersion(ctx.index, kv));
                if (!kv.isDelete()) {
                    String[] why = new String[1];
                    String text = ObjectView.render(key, kv.value(), output, ctx.showSecrets, why);
                    out.println(text != null ? text : "# (not shown: " + why[0] + ")");
                }
                prev = kv.isDelete() ? null : kv;
            } else if (kv.isDelete()) {
                out.printf(rev + "DELETE   prev_kv: %s%n", kv.modRevision(), prevText);
                prev = null;
            } else {
                out.printf(rev + "PUT      version %s, create %d, lease %s: %s%n" + indent + "prev_kv: %s%n", kv.modRevision(), shortVersion(ctx.index, kv),
                        kv.createRevision(), leaseText(kv.lease()), ValueView.summary(key, kv.value(), ctx.showSecrets), prevText);
                prev = kv;
            }
        }
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome at(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 1) return usage(out, "usage: at R|latest");
        String w = a.positional().get(0);
        if (w.equals("latest")) {
            ctx.viewRevision = Long.MAX_VALUE;
            out.println("viewing the latest revision " + ctx.index.revision());
            return ShellCommand.Outcome.OK;
        }
        long r;
        try {
            r = Long.parseLong(w);
        } catch (NumberFormatException e) {
            return error(out, "not a revision: " + w);
        }
        if (r < 0) return error(out, "not a revision: " + w);
        if (r == 0) { // as etcd's --rev 0 (and get --rev 0 here): the latest
            ctx.viewRevision = Long.MAX_VALUE;
            out.println("viewing the latest revision " + ctx.index.revision() + " (revision 0 is the latest, as etcd's --rev 0)");
            return ShellCommand.Outcome.OK;
        }
        String problem = revisionProblem(ctx, r);
        if (problem != null) return error(out, problem);
        ctx.viewRevision = r;
        out.println("viewing revision " + r);
        lostNote(ctx, r, out);
        return ShellCommand.Outcome.OK;
    }

    /** {@code diff R1 R2 KEY}: the fields of the key's object that differ between the two revisions, path by path. */
    private static ShellCommand.Outcome diffKey(ShellContext ctx, String key, long r1, long r2, PrintWriter out) {
        for (long r : new long[] {r1, r2}) {
            String problem = revisionProblem(ctx, r);
            if (problem != null) return error(out, problem);
        }
        if (!ctx.index.ever(keyBytes(key))) return error(out, "key not found: " + key);
        java.util.Map<String, String> before = fields(ctx, key, r1);
        java.util.Map<String, String> after = fields(ctx, key, r2);
        if (before == null || after == null) {
            return error(out, key + " at revision " + (before == null ? r1 : r2) + " is not an object this tool decodes (get -o json says why)");
        }
        java.util.TreeSet<String> paths = new java.util.TreeSet<>(before.keySet());
        paths.addAll(after.keySet());
        int n = 0;
        for (String p : paths) {
            String x = before.get(p);
            String y = after.get(p);
            if (java.util.Objects.equals(x, y)) continue;
            if (x == null) out.printf("+ %s: %s%n", p, y);
            else if (y == null) out.printf("- %s: %s%n", p, x);
            else out.printf("~ %s: %s -> %s%n", p, x, y);
            n++;
        }
        out.printf("%d field(s) differ between revisions %d and %d%n", n, r1, r2);
        return ShellCommand.Outcome.OK;
    }

    /** The key's object at {@code rev} as path → value (an absent key: no fields), or null when its value is no object. */
    private static java.util.Map<String, String> fields(ShellContext ctx, String key, long rev) {
        KeyValue kv = ctx.index.get(keyBytes(key), rev);
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        if (kv == null) return out;
        Object tree = ObjectView.tree(kv.value(), new String[1]);
        if (tree == null) return null;
        if (key.startsWith(ValueView.SECRETS) && !ctx.showSecrets) ObjectView.redact(tree);
        flatten("", tree, out);
        return out;
    }

    private static void flatten(String path, Object x, java.util.Map<String, String> out) {
        if (x instanceof java.util.Map<?, ?> m) {
            for (java.util.Map.Entry<?, ?> e : m.entrySet()) flatten(path.isEmpty() ? String.valueOf(e.getKey()) : path + "." + e.getKey(), e.getValue(), out);
        } else if (x instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) flatten(path + "[" + i + "]", l.get(i), out);
        } else {
            out.put(path, String.valueOf(x));
        }
    }

    private static ShellCommand.Outcome diff(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 2 && a.positional().size() != 3) return usage(out, "usage: diff R1 R2 [KEY] [--limit N]");
        long limit = a.number("--limit", ctx.rows);
        if (limit < 0) return error(out, a.error());
        long r1;
        long r2;
        try {
            r1 = Long.parseLong(a.positional().get(0));
            r2 = Long.parseLong(a.positional().get(1));
        } catch (NumberFormatException e) {
            return error(out, "revisions are numbers");
        }
        long compact = ctx.index.compactRevision();
        if (Math.min(r1, r2) < compact) return error(out, "revision " + Math.min(r1, r2) + " is compacted (compact revision " + compact + ")");
        if (a.positional().size() == 3) return diffKey(ctx, a.positional().get(2), r1, r2, out);
        int[] n = new int[3]; // created, changed, deleted
        ctx.index.changes(r1, r2, (key, kind, before, after) -> {
            if (ctx.interrupted) return false;
            // Every change counted; the first --limit listed (on a terminal 100 unless asked).
            boolean show = limit == 0 || n[0] + n[1] + n[2] < limit;
            String k = dev.walkit.cli.KeyText.quote(key);
            switch (kind) {
                case CREATED -> {
                    if (show) out.println("created  " + k + " (rev " + after + ")");
                    n[0]++;
                }
                case DELETED -> {
                    if (show) out.println("deleted  " + k + (after >= 0 ? " (rev " + after + ")" : ""));
                    n[2]++;
                }
                case CHANGED -> {
                    if (show) out.println("changed  " + k + " (rev " + before + " -> " + after + ")");
                    n[1]++;
                }
            }
            return true;
        });
        if (ctx.interrupted) return ShellCommand.Outcome.OK;
        int created = n[0];
        int changed = n[1];
        int deleted = n[2];
        long all = (long) created + changed + deleted;
        if (limit > 0 && all > limit) out.printf("… %,d of %,d changes shown (--limit N shows N, --limit 0 all)%n", limit, all);
        out.printf("%d created, %d changed, %d deleted%n", created, changed, deleted);
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome leases(ShellContext ctx, Args a, PrintWriter out) {
        var m = ctx.index.leaseMetadata();
        StoreHistory.EtcdFacts etcd = ctx.index.source().etcd();
        if (etcd != null) {
            // etcd's lease bucket: every lease granted and not revoked, with its TTL, keys or not.
            etcd.leases().forEach((id, ttl) -> out.printf("lease %s (%d): TTL %ds, %d live key(s)%n", dev.walkit.cli.LeaseId.text(id), id, ttl,
                    m.keysByLease().getOrDefault(id, 0)));
            out.printf("%d lease(s) in the db's lease bucket%n", etcd.leases().size());
            return ShellCommand.Outcome.OK;
        }
        boolean kine = ctx.index.source().kind() == dev.walkit.format.account.Store.Kind.KINE;
        m.keysByLease().forEach((id, n) -> out.printf(kine ? "lease %s (%d, kine: its TTL in seconds): %d key(s)%n" : "lease %s (%d): %d key(s)%n",
                dev.walkit.cli.LeaseId.text(id), id, n));
        if (kine) out.printf("%d lease(s)%n", m.keysByLease().size()); // kine's lease is its TTL: no next ID
        else out.printf("%d lease(s); next lease ID %s (%d)%n", m.keysByLease().size(), dev.walkit.cli.LeaseId.text(m.nextLeaseId()), m.nextLeaseId());
        return ShellCommand.Outcome.OK;
    }

    /** A key's lease as the lease commands print it (etcdctl's 16 hex digits, the decimal beside), or 0 for none. */
    static String leaseText(long lease) {
        return lease == 0 ? "0" : dev.walkit.cli.LeaseId.text(lease) + " (" + lease + ")";
    }

    private static ShellCommand.Outcome lease(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 1) return usage(out, "usage: lease ID [--limit N]");
        long limit = a.number("--limit", ctx.rows);
        if (limit < 0) return error(out, a.error());
        long id;
        try {
            id = dev.walkit.cli.LeaseId.parse(a.positional().get(0));
        } catch (NumberFormatException e) {
            return usage(out, "not a lease ID: " + a.positional().get(0) + " (hex, as 'leases' prints it and etcdctl reads it: digits too, 0x optional)");
        }
        int n = 0;
        for (byte[] k : ctx.index.liveOnLease(id)) {
            if (ctx.interrupted) return ShellCommand.Outcome.OK;
            if (limit == 0 || n < limit) out.println(dev.walkit.cli.KeyText.quote(k));
            n++;
        }
        if (n == 0) {
            // A lease etcd granted and holds, with no key on it now: as etcdctl lease timetolive shows it (exit 0).
            StoreHistory.EtcdFacts etcd = ctx.index.source().etcd();
            Long ttl = etcd == null ? null : etcd.leases().get(id);
            if (ttl != null) {
                out.printf("lease %s (%d): TTL %ds, 0 live keys%n", dev.walkit.cli.LeaseId.text(id), id, ttl);
                return ShellCommand.Outcome.OK;
            }
            return error(out, "no live key is attached to lease " + dev.walkit.cli.LeaseId.text(id) + " (" + id + ")");
        }
        if (limit > 0 && n > limit) out.printf("… %,d of %,d keys shown (--limit N shows N, --limit 0 all)%n", limit, n);
        else out.printf("%d key(s)%n", n);
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome txn(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() != 1) return usage(out, "usage: txn R");
        long r;
        try {
            r = Long.parseLong(a.positional().get(0));
        } catch (NumberFormatException e) {
            return error(out, "not a revision: " + a.positional().get(0));
        }
        int i = ctx.index.txnIndex(r);
        if (i < 0) {
            String lost = lostWindow(ctx, r);
            return error(out, "no applied transaction at revision " + r + (lost == null ? "" : ": " + lost));
        }
        long off = ctx.index.txnOffset(i);
        boolean wal = ctx.index.source().isWal();
        if (wal) out.printf("transaction at revision %d: %d record(s) from offset %d%n", r, ctx.index.txnRecords(i), off);
        else out.printf("transaction at revision %d: %d record(s)%n", r, ctx.index.txnRecords(i));
        for (int j = 0; j < ctx.index.txnRecords(i); j++) {
            KeyValue kv = ctx.index.recordAt(off);
            if (kv == null) break;
            String key = dev.walkit.cli.KeyText.quote(kv.key());
            out.printf("  %s%-8s %s%s%n", wal ? "@" + off + " " : "", kv.isDelete() ? "DELETE" : "PUT", key,
                    kv.isDelete() ? "" : "  " + ValueView.summary(key, kv.value(), ctx.showSecrets));
            off += dev.walkit.format.RecordEncoder.recordLength(kv);
        }
        return ShellCommand.Outcome.OK;
    }

    /** An error for a command about WAL bytes on another store; null on a WAL. */
    private static ShellCommand.Outcome walOnly(ShellContext ctx, String command, PrintWriter out) {
        if (ctx.index.source().isWal()) return null;
        boolean etcd = ctx.index.source().etcd() != null;
        return error(out, command + " reads a WAL's bytes; " + ctx.index.source().file() + (etcd ? " is an etcd db (its damage, by page, is in waldoctor diagnose)"
                : " is a kine state.db (its rows: sqlite3 on a copy)"));
    }

    private static ShellCommand.Outcome records(ShellContext ctx, Args a, PrintWriter out) {
        ShellCommand.Outcome walOnly = walOnly(ctx, "records", out);
        if (walOnly != null) return walOnly;
        if (a.has("--follow")) return error(out, "--follow follows a live WAL from the command line: waldoctor records PATH --follow");
        long from = a.number("--from", 0);
        long limit = a.number("--limit", 20);
        if (from < 0 || limit < 0) return error(out, a.error());
        if (from > ctx.index.file().size()) return error(out, "offset " + from + " is past the end (" + ctx.index.file().size() + " bytes)");
        if (ctx.index.format() != dev.walkit.format.WalFormat.V2) return error(out, "records lists v2 logs; this one is " + ctx.index.format().label());
        WalReader r = new WalReader(ctx.index.file(), ReaderOptions.defaults());
        long start = recordStart(ctx, from);
        if (start != from) {
            out.printf("(offset %d is inside the %s at %d: listing from there)%n", from, ctx.index.file().size() > start && isRecord(ctx, start) ? "record" : "damaged span",
                    start);
        }
        r.seek(start);
        int n = 0;
        for (ReadResult x; n < limit && !ctx.interrupted && (x = r.next()) != null; n++) {
            if (x instanceof RecordView v) out.println(recordLine(v.offset(), v.length(), v.revision(), Flags.describe(v.flags()), v.key()));
            else out.println(damageLine((DamageSpan) x));
        }
        return ShellCommand.Outcome.OK;
    }

    /** A record as {@code records} lists it (and {@code records --follow}): offset, length, revision, flags, key. */
    static String recordLine(long offset, long length, long revision, String flags, byte[] key) {
        return String.format("@%-10d %5d B  rev %-8d %-17s %s", offset, length, revision, flags, key == null ? "?" : dev.walkit.cli.KeyText.quote(key));
    }

    /** A damaged span as {@code records} lists it. */
    static String damageLine(DamageSpan d) {
        return String.format("@%-10d %5d B  DAMAGE %s: %s", d.offset(), d.length(), d.kind().label(), d.describe());
    }

    /**
     * Where the reader's result that holds {@code offset} starts: {@code offset} itself at a record's or span's start, else
     * the start of the record (or damaged span) it falls inside, found by reading on from the last transaction before it.
     * (Read from an offset inside a record, the reader would report bytes that are fine as a garbage span.)
     */
    private static long recordStart(ShellContext ctx, long offset) {
        if (offset == 0 || offset >= ctx.index.file().size()) return offset;
        int t = ctx.index.lastTxnAtOrBefore(offset);
        long pos = t >= 0 ? ctx.index.txnOffset(t) : 0;
        WalReader r = new WalReader(ctx.index.file(), ReaderOptions.defaults());
        r.seek(pos);
        for (ReadResult x; (x = r.next()) != null; ) {
            if (x.offset() + x.length() > offset) return x.offset() <= offset ? x.offset() : offset;
        }
        return offset;
    }

    private static boolean isRecord(ShellContext ctx, long offset) {
        WalReader r = new WalReader(ctx.index.file(), ReaderOptions.defaults());
        r.seek(offset);
        return r.next() instanceof RecordView;
    }

    /** The most bytes one hexdump shows. */
    static final int HEXDUMP_MAX = 1 << 20;

    private static ShellCommand.Outcome hexdump(ShellContext ctx, Args a, PrintWriter out) {
        ShellCommand.Outcome walOnly = walOnly(ctx, "hexdump", out);
        if (walOnly != null) return walOnly;
        if (a.positional().isEmpty() || a.positional().size() > 2) return usage(out, "usage: hexdump OFFSET [LEN]");
        long off;
        int len;
        try {
            off = Long.decode(a.positional().get(0));
            len = a.positional().size() == 2 ? Integer.decode(a.positional().get(1)) : 256;
        } catch (NumberFormatException e) {
            return error(out, "OFFSET and LEN are numbers (decimal or 0x…)");
        }
        long size = ctx.index.file().size();
        if (off < 0 || off >= size) return error(out, "offset " + off + " is outside the file (" + size + " bytes)");
        if (len <= 0) return error(out, "LEN must be 1 or more");
        int asked = len;
        len = (int) Math.min(Math.min(len, HEXDUMP_MAX), size - off);
        boolean[] hidden = new boolean[len];
        int redacted = 0;
        if (!ctx.showSecrets) {
            // A Secret's value bytes, as every other command redacts them.
            for (long[] v : ctx.index.valueSpans(keyBytes(ValueView.SECRETS), off, off + len)) {
                for (long i = Math.max(v[0], off); i < Math.min(v[1], off + len); i++) {
                    if (!hidden[(int) (i - off)]) redacted++;
                    hidden[(int) (i - off)] = true;
                }
            }
        }
        byte[] bytes = ctx.index.file().read(off, len);
        // A line at a time: Ctrl-C stops a long dump where it is, as it stops a range.
        for (int i = 0; i < len; i += 16) {
            if (ctx.interrupted) {
                out.printf("(stopped at offset %,d: %,d of %,d bytes shown)%n", off + i, i, len);
                return ShellCommand.Outcome.OK;
            }
            out.print(ValueView.hexdumpLine(bytes, off, i, len, hidden));
        }
        if (asked > len) {
            out.printf(asked > HEXDUMP_MAX && len == HEXDUMP_MAX ? "(%,d bytes shown of the %,d asked: hexdump shows at most 1 MiB at a time; OFFSET %,d goes on)%n"
                    : "(%,d bytes shown of the %,d asked: the file ends there)%n", len, asked, off + len);
        }
        if (redacted > 0) out.printf("(%,d byte(s) of %s values shown as **: --show-secrets to show them)%n", redacted, ValueView.SECRETS);
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome damage(ShellContext ctx, Args a, PrintWriter out) {
        dev.walkit.format.account.Account acc = ctx.index.account();
        AccountText.storeDamage(out, "", acc);
        for (DamageLocator.Located l : acc.damage()) AccountText.span(out, "", l, acc);
        for (Finding f : acc.findings()) AccountText.finding(out, "", f);
        for (dev.walkit.format.account.Drop d : acc.drops()) out.println(AccountText.drop(d));
        if (!acc.affectedKeys().isEmpty()) {
            out.println("keys whose latest state is uncertain:");
            AccountText.affectedKeys(out, "  ", acc, ctx.rows > 0 ? (int) ctx.rows : Integer.MAX_VALUE);
        }
        for (LostWindows.Window w : LostWindows.of(ctx.index)) out.println(LostWindows.text(w));
        if (acc.healthy()) out.println("no damage, no finding");
        return ShellCommand.Outcome.OK;
    }

    private static ShellCommand.Outcome help(ShellContext ctx, Args a, PrintWriter out) {
        if (a.positional().size() == 1) {
            ShellCommand c = TABLE.get(a.positional().get(0));
            if (c == null) return error(out, "unknown command '" + a.positional().get(0) + "'");
            out.print(wrapped(ctx, String.format("%s%n  %s%n", c.usage(), c.help()), 2));
            return ShellCommand.Outcome.OK;
        }
        StringBuilder list = new StringBuilder();
        for (ShellCommand c : TABLE.values()) list.append(String.format("  %-48s %s%n", c.usage(), c.help()));
        // On a terminal narrower than the list, each description goes on under itself, words whole.
        out.print(wrapped(ctx, list.toString(), 51));
        return ShellCommand.Outcome.OK;
    }

    /** {@code text} wrapped at spaces to the shell's terminal (lines going on at {@code indent}), as is from a pipe. */
    private static String wrapped(ShellContext ctx, String text, int indent) {
        return ctx.width > 0 ? dev.walkit.cli.HelpWrap.wrap(text, ctx.width, indent) : text;
    }
}
