package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.Timing;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.WriteOut;
import dev.walkit.format.Wal;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code walmigrate}: kine/SQLite, a WAL, etcd's db or a live etcd into an etcd v3 endpoint with CAS transactions, or offline into a WAL or kine's db. */
@Command(name = "walmigrate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Move a cluster's data from kine's SQLite state.db, a WAL, etcd's db or a live etcd into an etcd v3 endpoint without "
                + "overwriting anything: each batch is one transaction that writes only keys that do not exist.",
                "Idempotent: run it again after a failure and it completes; keys present with another value are "
                + "conflicts, never overwritten (exit 1).",
                "Or, with --out-wal DIR or --out-kine DIR instead of --endpoints, write the store's WAL or kine's state.db offline."},
        subcommands = {WalMigrate.Kine.class, WalMigrate.FromWal.class, WalMigrate.FromEtcdDb.class, WalMigrate.FromEtcd.class, WalMigrate.Verify.class, picocli.AutoComplete.GenerateCompletion.class})
public final class WalMigrate implements Callable<Integer> {
    /**
     * gRPC's own logging (java.util.logging, INFO lines such as a channel's transient failures) off: walmigrate
     * reports what fails itself. Held here, as a logger's level lasts only as long as someone holds the logger.
     */
    private static final java.util.logging.Logger GRPC_LOG = java.util.logging.Logger.getLogger("io.grpc");

    static {
        GRPC_LOG.setLevel(java.util.logging.Level.OFF);
    }

    @Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // The migration job's plain command lines skip building picocli's model; anything else is picocli's.
        PlainArgs.Parsed plain = PlainArgs.parse(args);
        int code = plain != null ? runPlain(plain, Cli.stdout(), Cli.stderr()) : Cli.run(new WalMigrate(), args);
        dev.walkit.cli.Timing.mark("exit");
        Cli.exit("walmigrate", code);
    }

    /** A plain command line run as picocli would run it, an unexpected exception reported as Cli reports it. */
    static int runPlain(PlainArgs.Parsed p, PrintWriter out, PrintWriter err) {
        try {
            KeySourceOpener open = p.subcommand().equals("kine") ? () -> SourceGate.kine(p.source(), false, null) : () -> SourceGate.wal(p.source(), null);
            return migrate(out, err, p.writeOut(), open, p.options(), List.of());
        } catch (RuntimeException e) {
            return Cli.internalError(p.subcommand(), e, err);
        }
    }

    /** The configured command line (what main runs, and what the build renders help and man pages from). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return Cli.commandLine(new WalMigrate(), out, err);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE.code();
    }

    /** The target and how to write to it. */
    static final class Target {
        @Option(names = "--endpoints", split = ",", paramLabel = "URL[,URL...]", description = "etcd client URLs, or HOST:PORT as etcdctl takes them (http; https with the TLS options); fail over between them.")
        List<String> endpoints;

        @Option(names = "--prefix", defaultValue = "", paramLabel = "P", description = "Only keys starting with P.")
        String prefix;

        @Option(names = "--batch", defaultValue = "128", paramLabel = "N", description = "Operations per transaction (etcd's --max-txn-ops; default ${DEFAULT-VALUE}).")
        int batch;

        @Option(names = "--concurrency", defaultValue = "8", paramLabel = "N", description = "Transactions in flight (default ${DEFAULT-VALUE}).")
        int concurrency;

        @Option(names = "--dry-run", description = "Read the source and plan the batches; write nothing.")
        boolean dryRun;

        @Option(names = "--lease-ttl", defaultValue = "3600", paramLabel = "SECONDS", description = "WAL source: TTL of re-granted leases (default ${DEFAULT-VALUE}).")
        long leaseTtl;

        @Option(names = "--cacert", paramLabel = "F", description = "CA certificate (PEM) to trust for https:// endpoints.")
        Path cacert;

        @Option(names = "--cert", paramLabel = "F", description = "Client certificate (PEM), with --key.")
        Path cert;

        @Option(names = "--key", paramLabel = "F", description = "Client private key (PEM, PKCS#8), with --cert.")
        Path key;

        @Option(names = "--user", paramLabel = "U", description = "etcd user, with --password-file.")
        String user;

        @Option(names = "--password-file", paramLabel = "F", description = "File holding the user's password (first line).")
        Path passwordFile;

        @Option(names = "--route", paramLabel = "PREFIX=URL[,URL...]", description = "Keys under PREFIX to another etcd (a shard), the rest "
                + "to --endpoints; repeatable. Also kube-apiserver's --etcd-servers-overrides form, group/resource#URL;URL (/events#URL: the keys "
                + "under /registry/events/). Each shard is copied, followed (--follow: each its own etcd, marker and resume point; one cut-over) and verified on its own.")
        List<String> routes;

        MigrateOptions options() {
            return new MigrateOptions(endpoints, prefix, batch, concurrency, dryRun, leaseTtl, cacert, cert, key, user, passwordFile);
        }
    }

    /** The shards --route names, and the rest for --endpoints: each its options and its part of the source. */
    record Shard(MigrateOptions options, KeySourceOpener open) {
    }

    /** {@code o} and {@code open} split by {@code routes}: a shard per route, then the rest (one shard when there is no route). */
    static List<Shard> shards(MigrateOptions o, List<String> routes, KeySourceOpener open) {
        Routes r = Routes.parse(routes);
        if (r.isEmpty()) return List.of(new Shard(o, open));
        List<Shard> out = new java.util.ArrayList<>();
        for (Routes.Route route : r.routes()) {
            byte[] p = route.prefix().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.add(new Shard(Routes.forRoute(o, route), () -> KeySource.under(open.open(), p)));
        }
        out.add(new Shard(o, () -> r.rest(open.open())));
        return out;
    }

    /**
     * The copy into each shard ({@code --route}; one target without it), one after the other, each report printed as it
     * ends (one JSON document a shard); the worst exit code.
     */
    static int migrate(PrintWriter out, PrintWriter err, WriteOut writeOut, KeySourceOpener open, MigrateOptions o, List<String> routes) {
        if (writeOut.check("walmigrate", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        List<Shard> shards;
        try {
            shards = shards(o, routes, open);
        } catch (IllegalArgumentException e) {
            err.println("walmigrate: " + e.getMessage());
            return ExitCode.USAGE.code();
        }
        int worst = 0;
        for (Shard sh : shards) {
            int code = migrate(out, err, writeOut.format(), sh.open(), sh.options());
            // A source refused or unreadable, a target that failed, a usage error: the same for the shards after it: stop.
            if (code > ExitCode.CONFLICTS.code()) return code;
            worst = Math.max(worst, code);
        }
        return worst;
    }

    static int migrate(PrintWriter out, PrintWriter err, OutputFormat format, KeySourceOpener open, MigrateOptions o) {
        String invalid = o.dryRun() && (o.endpoints() == null || o.endpoints().isEmpty()) ? null : o.validate();
        if (invalid != null) {
            err.println("walmigrate: " + invalid);
            return ExitCode.USAGE.code();
        }
        Timing.mark("parsed");
        // Connecting overlaps opening the source (a dry run connects to nothing).
        try (EarlyClient target = o.dryRun() ? null : EarlyClient.connect(o); KeySource src = open.open()) {
            Timing.mark("source open");
            SourceGate.Said gate = src.gate();
            if (gate.note() != null) err.println("walmigrate: " + gate.note());
            MigrationReport r = new Migrator(o, Cli.stderrIsTerminal() ? err : null).run(src, target);
            ExitCode ran = !r.errors().isEmpty() || !r.tooLarge().isEmpty() ? ExitCode.FAILED
                    : r.conflictCount() > 0 ? ExitCode.CONFLICTS : ExitCode.OK;
            ExitCode code = ran == ExitCode.OK ? gate.floor() : ran;
            Output.migration(out, format, src.describe(), o, r, code);
            out.flush();
            for (String t : r.tooLarge()) err.println("walmigrate: too large for any request: " + t);
            for (String e : r.errors()) err.println("walmigrate: " + e);
            return code.code();
        } catch (Exception e) {
            return failed(err, e);
        }
    }

    /**
     * One line on stderr: a source the gate refused (damage) is exit 3, an unreadable source exit 4, the target's
     * failure (it refused, did not answer, or was not what a follow needs) exit 5, and anything else a bug: exit 70.
     */
    static int failed(PrintWriter err, Exception e) {
        if (e instanceof SourceGate.Refused) {
            err.println("walmigrate: " + e.getMessage());
            return ExitCode.DAMAGE.code();
        }
        if (e instanceof IOException) {
            err.println("walmigrate: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
        if (e instanceof RuntimeException && !targetsFailure(e)) return Cli.internalError("walmigrate", e, err);
        err.println("walmigrate: " + e.getMessage());
        return ExitCode.FAILED.code();
    }

    /** Whether {@code e} is how the target (or a live source) failed, not a bug: what the client and the job throw for it. */
    static boolean targetsFailure(Exception e) {
        return e instanceof IllegalStateException || e instanceof IllegalArgumentException || e instanceof io.grpc.StatusRuntimeException
                || e instanceof java.util.concurrent.CompletionException || e instanceof io.etcd.jetcd.common.exception.EtcdException
                || e instanceof java.io.UncheckedIOException;
    }

    /** Every source command's line on {@link OfflineMixin}'s outputs. */
    static final String OFFLINE = "With --out-wal DIR or --out-kine DIR instead of --endpoints: written offline (DIR/wal and DIR/leases.json, or DIR/state.db).";

    @FunctionalInterface
    interface KeySourceOpener {
        KeySource open() throws IOException;
    }

    @Command(name = "kine", mixinStandardHelpOptions = true, description = {"From kine's SQLite state.db (read from a private copy of db, -wal and -shm).",
            OFFLINE})
    static final class Kine implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--sqlite", required = true, paramLabel = "state.db", description = "kine's SQLite database; never written.")
        Path sqlite;

        @Mixin
        PolicyMixin policy;

        @Mixin
        OfflineMixin offline;

        @Mixin
        FollowMixin follow;

        @Mixin
        TargetMixin target;

        @Mixin
        WriteOut writeOut;

        @Override
        public Integer call() {
            Integer f = followed(spec, follow, offline, target, writeOut, () -> KineFeed.open(sqlite));
            if (f != null) return f;
            Integer o = offline.run(spec, writeOut, target.t.leaseTtl, () -> SourceGate.kine(sqlite, true, policy.policy));
            if (o != null) return o;
            return migrate(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, () -> SourceGate.kine(sqlite, false, policy.policy), target.t.options(), target.t.routes);
        }
    }

    @Command(name = "wal", mixinStandardHelpOptions = true, description = {"From a WAL's live state (replayed); leases re-granted with --lease-ttl, old ID -> new ID.",
            OFFLINE})
    static final class FromWal implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--wal", required = true, paramLabel = "PATH", description = "A WAL file or data directory; never written.")
        Path wal;

        @Mixin
        PolicyMixin policy;

        @Mixin
        OfflineMixin offline;

        @Mixin
        FollowMixin follow;

        @Mixin
        TargetMixin target;

        @Mixin
        WriteOut writeOut;

        @Override
        public Integer call() {
            Integer f = followed(spec, follow, offline, target, writeOut, () -> WalFeed.open(wal, target.t.prefix == null ? "" : target.t.prefix));
            if (f != null) return f;
            Integer o = offline.run(spec, writeOut, target.t.leaseTtl, () -> SourceGate.wal(wal, policy.policy));
            if (o != null) return o;
            return migrate(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, () -> SourceGate.wal(wal, policy.policy), target.t.options(), target.t.routes);
        }
    }

    @Command(name = "etcd", mixinStandardHelpOptions = true, description = {
            "From a live etcd (never written), its keys at one consistent revision.",
            "They are read a page at a time; leases are granted at the TTLs the source granted them (--source-cacert, --source-cert, … as for the target).",
            OFFLINE})
    static final class FromEtcd implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--source-endpoints", required = true, split = ",", paramLabel = "URL[,URL...]", description = "The source etcd's client URLs (or HOST:PORT; https with the --source TLS options).")
        List<String> source;

        @Option(names = "--source-cacert", paramLabel = "F", description = "CA certificate (PEM) to trust for the source's https:// endpoints.")
        Path sourceCacert;

        @Option(names = "--source-cert", paramLabel = "F", description = "Client certificate (PEM) for the source, with --source-key.")
        Path sourceCert;

        @Option(names = "--source-key", paramLabel = "F", description = "Client private key (PEM, PKCS#8) for the source.")
        Path sourceKey;

        @Option(names = "--source-user", paramLabel = "U", description = "The source's user (etcd auth), with --source-password-file.")
        String sourceUser;

        @Option(names = "--source-password-file", paramLabel = "F", description = "A file whose first line is --source-user's password.")
        Path sourcePasswordFile;

        @Mixin
        OfflineMixin offline;

        @Mixin
        FollowMixin follow;

        @Mixin
        TargetMixin target;

        @Mixin
        WriteOut writeOut;

        @Override
        public Integer call() {
            String prefix = target.t.prefix == null ? "" : target.t.prefix;
            MigrateOptions from = new MigrateOptions(source, prefix, 128, 1, true, 3600, sourceCacert, sourceCert, sourceKey, sourceUser, sourcePasswordFile);
            String invalid = from.validate();
            if (invalid != null) {
                spec.commandLine().getErr().println("walmigrate: " + invalid.replaceAll("--(endpoints|cacert|cert|key|user|password-file)\\b", "--source-$1"));
                return ExitCode.USAGE.code();
            }
            Integer f = followed(spec, follow, offline, target, writeOut, () -> EtcdFeed.open(from));
            if (f != null) return f;
            // Every shard copied at the revision the first was read at: one moment of the source.
            long[] pinned = {0};
            KeySourceOpener opener = () -> {
                EtcdLiveSource s = EtcdLiveSource.open(from, pinned[0]);
                pinned[0] = s.revision();
                return s;
            };
            Integer o = offline.run(spec, writeOut, target.t.leaseTtl, opener);
            if (o != null) return o;
            return migrate(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, opener, target.t.options(), target.t.routes);
        }
    }

    @Command(name = "etcd-db", mixinStandardHelpOptions = true, description = {
            "From etcd's db: a stopped member's member/snap/db or data directory, or etcdctl snapshot save output (never written).",
            "Its live state at its last revision; leases granted at the TTLs of its lease bucket.",
            OFFLINE})
    static final class FromEtcdDb implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--db", required = true, paramLabel = "PATH", description = "The etcd db file or data directory; never written.")
        Path db;

        @Mixin
        PolicyMixin policy;

        @Mixin
        OfflineMixin offline;

        @Mixin
        TargetMixin target;

        @Mixin
        WriteOut writeOut;

        @Override
        public Integer call() {
            Integer o = offline.run(spec, writeOut, target.t.leaseTtl, () -> SourceGate.etcdDb(db, policy.policy));
            if (o != null) return o;
            return migrate(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, () -> SourceGate.etcdDb(db, policy.policy), target.t.options(), target.t.routes);
        }
    }

    /** What an offline output writes: the source's live set into DIR, with what it wrote. */
    @FunctionalInterface
    interface OfflineWriter {
        OfflineWal.Written write(KeySource source, Path dir, long leaseTtl, java.time.Instant now) throws IOException;
    }

    /** {@code --policy}: what to copy from a damaged stored source, as walrecover's policy (none: damage is refused). */
    static final class PolicyMixin {
        @Option(names = "--policy", paramLabel = "POLICY", converter = dev.walkit.cli.Policies.Parse.class, completionCandidates = dev.walkit.cli.Policies.Labels.class,
                description = "A damaged source: copy what walrecover's policy ${COMPLETION-CANDIDATES} keeps (exit 3 where it refuses; past a "
                        + "kine or etcd db's own damage only salvage copies, what was read past it). "
                        + "Without it a damaged source is refused (exit 3); a torn tail alone is left out, as the store drops it (exit 1).")
        dev.walkit.format.policy.RecoveryPolicy policy;
    }

    /** The offline outputs every source has, instead of --endpoints: --out-wal DIR or --out-kine DIR. */
    static final class OfflineMixin {
        @Option(names = "--out-wal", paramLabel = "DIR", description = "Write DIR/wal (a v2 WAL in snapshot form) and DIR/leases.json instead of migrating to etcd.")
        Path outWal;

        @Option(names = "--out-kine", paramLabel = "DIR", description = "Write DIR/state.db, kine's database (the way back to kine), instead of migrating to etcd; leases as TTLs.")
        Path outKine;

        /** Writes the output asked for and returns the exit code; null when none was (the job migrates to --endpoints). */
        Integer run(CommandLine.Model.CommandSpec spec, WriteOut writeOut, long leaseTtl, KeySourceOpener opener) {
            PrintWriter err = spec.commandLine().getErr();
            if (outWal != null && outKine != null) {
                err.println("walmigrate: --out-wal and --out-kine: one output at a time");
                return ExitCode.USAGE.code();
            }
            if (outWal != null) {
                return write(spec, writeOut, outWal, OfflineWal.refusal(outWal), leaseTtl, opener, OfflineWal::write, "wal", Wal.WAL_FILE);
            }
            if (outKine != null) {
                return write(spec, writeOut, outKine, OfflineKine.refusal(outKine), leaseTtl, opener, OfflineKine::write, "kine", OfflineKine.FILE);
            }
            return null;
        }

        private static int write(CommandLine.Model.CommandSpec spec, WriteOut writeOut, Path dir, String refusal, long leaseTtl, KeySourceOpener opener,
                                 OfflineWriter writer, String kind, String file) {
            PrintWriter err = spec.commandLine().getErr();
            if (writeOut.check("walmigrate", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
            // As walrecover refuses an existing DIR/wal: a usage error, before the source is read; unless a switch a
            // crashed run left is to be undone first (under DIR's lock, in the writer), after which DIR is judged again.
            if (refusal != null && !dev.walkit.format.output.OutputDir.unfinishedSwitch(dir)) {
                try {
                    dev.walkit.format.output.OutputDir.removeStaleLock(dir); // a killed run's: a refused rerun leaves none
                } catch (java.io.IOException e) {
                    // the refusal is what matters here
                }
                err.println("walmigrate: " + refusal);
                return ExitCode.USAGE.code();
            }
            try (KeySource src = opener.open()) {
                SourceGate.Said gate = src.gate();
                if (gate.note() != null) err.println("walmigrate: " + gate.note());
                OfflineWal.Written w = writer.write(src, dir, leaseTtl, java.time.Instant.now());
                Output.offline(spec.commandLine().getOut(), writeOut.format(), kind, dir.resolve(file), w);
                return gate.floor().code();
            } catch (IOException e) {
                if (e instanceof SourceGate.Refused) return failed(err, e);
                // A write into DIR that failed (a full disk) names the output, not its temp file, and says nothing was written.
                err.println("walmigrate: " + dev.walkit.cli.IoErrors.writing(dev.walkit.cli.IoErrors.describe(e), dir));
                return ExitCode.UNREADABLE.code();
            } catch (Exception e) {
                return failed(err, e);
            }
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true, description = "Compare the source's live set with the target: counts, missing, extra, different (values compared byte for byte). Exit 0 only when equal.")
    static final class Verify implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        static final class Source {
            @Option(names = "--sqlite", paramLabel = "state.db", description = "The source: kine's SQLite database.")
            Path sqlite;

            @Option(names = "--wal", paramLabel = "PATH", description = "The source: a WAL file or data directory.")
            Path wal;

            @Option(names = "--db", paramLabel = "PATH", description = "The source: an etcd db file or data directory.")
            Path db;
        }

        @Mixin
        TargetMixin target;

        @Mixin
        WriteOut writeOut;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            MigrateOptions o = target.t.options();
            if (writeOut.check("walmigrate verify", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
            String invalid = o.validate();
            if (invalid != null) {
                err.println("walmigrate: " + invalid);
                return ExitCode.USAGE.code();
            }
            KeySourceOpener open = () -> source.sqlite != null ? SourceGate.kine(source.sqlite, true, null)
                    : source.db != null ? SourceGate.etcdDb(source.db, null) : SourceGate.wal(source.wal, null);
            List<Shard> shards;
            try {
                shards = shards(o, target.t.routes, open);
            } catch (IllegalArgumentException e) {
                err.println("walmigrate: " + e.getMessage());
                return ExitCode.USAGE.code();
            }
            int worst = 0;
            for (Shard sh : shards) {
                String bad = sh.options().validate();
                if (bad != null) {
                    err.println("walmigrate: " + bad);
                    return ExitCode.USAGE.code();
                }
                try (KeySource src = sh.open().open()) {
                    SourceGate.Said gate = src.gate();
                    if (gate.note() != null) err.println("walmigrate: " + gate.note());
                    Comparison c = Comparison.run(src, sh.options());
                    Output.comparison(out, writeOut.format(), c);
                    out.flush();
                    worst = Math.max(worst, c.equal() ? gate.floor().code() : ExitCode.CONFLICTS.code());
                } catch (Exception e) {
                    return failed(err, e); // the same source for the shards after it: stop
                }
            }
            return worst;
        }
    }

    /** The follow, when --follow (or a follow's option) was given: its exit code; null when the job copies once. */
    static Integer followed(CommandLine.Model.CommandSpec spec, FollowMixin f, OfflineMixin offline, TargetMixin target, WriteOut writeOut, FeedOpener open) {
        MigrateOptions o = target.t.options();
        String usage = f.check(o, offline, target.t.routes);
        if (usage != null) {
            spec.commandLine().getErr().println("walmigrate: " + usage);
            return ExitCode.USAGE.code();
        }
        if (!f.follow) return null;
        if (offline.outWal != null || offline.outKine != null) {
            return followOffline(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, open, o, f, offline);
        }
        if (target.t.routes != null && !target.t.routes.isEmpty()) {
            return followShards(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, open, o, f, target.t.routes);
        }
        return follow(spec.commandLine().getOut(), spec.commandLine().getErr(), writeOut, open, o, f);
    }

    /**
     * {@code --follow --route …}: each shard followed on its own (its own read of the source, CAS transactions, marker,
     * resume point and verify), all at once; the cut-over (the file, a signal, --until-revision) is every shard's, each
     * drained to the source's last revision and verified at it. One report a shard, in order; the worst exit code.
     */
    static int followShards(PrintWriter out, PrintWriter err, WriteOut writeOut, FeedOpener open, MigrateOptions o, FollowMixin f, List<String> routes) {
        if (writeOut.check("walmigrate", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        Routes r;
        List<MigrateOptions> shards = new java.util.ArrayList<>();
        try {
            r = Routes.parse(routes);
            for (Routes.Route route : r.routes()) shards.add(Routes.forRoute(o, route));
        } catch (IllegalArgumentException e) {
            err.println("walmigrate: " + e.getMessage());
            return ExitCode.USAGE.code();
        }
        shards.add(o);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (MigrateOptions s : shards) {
            String invalid = s.validate();
            if (invalid != null) {
                err.println("walmigrate: " + invalid);
                return ExitCode.USAGE.code();
            }
            for (String e : s.endpoints()) {
                if (!seen.add(e)) {
                    err.println("walmigrate: --route with --follow: " + e + " is named by two shards: each shard needs its own etcd (its follow's marker is its own)");
                    return ExitCode.USAGE.code();
                }
            }
        }
        try (dev.walkit.cli.StopOnSignal stop = new dev.walkit.cli.StopOnSignal("walmigrate")) {
            List<java.util.concurrent.CompletableFuture<Integer>> runs = new java.util.ArrayList<>();
            List<java.io.StringWriter> outs = new java.util.ArrayList<>();
            for (int i = 0; i < shards.size(); i++) {
                MigrateOptions s = shards.get(i);
                Routes except = i == shards.size() - 1 ? r : null;
                java.io.StringWriter buf = new java.io.StringWriter();
                outs.add(buf);
                PrintWriter shardOut = new PrintWriter(buf);
                // A thread a shard: each follow runs until the cut-over (the common pool has one thread on two cores).
                java.util.concurrent.CompletableFuture<Integer> run = new java.util.concurrent.CompletableFuture<>();
                Thread t = new Thread(() -> {
                    try {
                        run.complete(follow(shardOut, err, writeOut, open, s, f, stop, except, false, o.prefix()));
                    } catch (Throwable x) {
                        run.completeExceptionally(x);
                    }
                }, "walmigrate-shard-" + i);
                t.setDaemon(true);
                t.start();
                runs.add(run);
            }
            int worst = 0;
            for (int i = 0; i < runs.size(); i++) {
                worst = Math.max(worst, runs.get(i).join());
                out.print(outs.get(i));
            }
            out.flush();
            return stop.done(worst);
        }
    }

    /** A follow's options, on the three sources that can be followed live. */
    static final class FollowMixin {
        @Option(names = "--follow", description = "After the copy, apply the source's changes as they are made (each source transaction whole, in order, "
                + "with the copy's rules; into etcd, consecutive ones together while behind: --coalesce), until the cut-over: --until-revision, --cutover FILE or SIGINT/SIGTERM; then verify. "
                + "Run it again after a crash: into etcd it resumes where the target's marker says; --out-wal and --out-kine, "
                + "published only at the cut-over, start again.")
        boolean follow;

        @Option(names = "--until-revision", paramLabel = "R", description = "With --follow: cut over once the source's revision R is applied.")
        long untilRevision;

        @Option(names = "--cutover", paramLabel = "FILE", description = "With --follow: cut over when FILE exists (stop the source's writers first).")
        Path cutover;

        @Option(names = "--marker", paramLabel = "KEY", defaultValue = FollowMarker.DEFAULT_KEY,
                description = "With --follow: the target key that holds where the follow stands (default ${DEFAULT-VALUE}); removed at the cut-over.")
        String marker;

        @Option(names = "--pipeline", paramLabel = "N", defaultValue = "" + Follow.DEFAULT_PIPELINE,
                description = "With --follow into etcd: keep up to N follow transactions in flight (default ${DEFAULT-VALUE}; 1: one at a time). "
                        + "Each still applies only after the one before it (its compare names that one's marker); a failed one stops "
                        + "the pipeline, which goes on from the target's marker.")
        int pipeline;

        @Option(names = "--coalesce", paramLabel = "N", defaultValue = "" + Follow.DEFAULT_COALESCE,
                description = "With --follow into etcd: when the follow is behind, apply up to N consecutive source transactions already read "
                        + "as one target transaction (no key in two of them; within --batch; each source transaction whole, in order). "
                        + "Default ${DEFAULT-VALUE}; 1: one target transaction (and revision) for each source transaction.")
        int coalesce;

        /** A usage error, or null. */
        String check(MigrateOptions o, OfflineMixin offline, List<String> routes) {
            if (routes != null && !routes.isEmpty() && (offline.outWal != null || offline.outKine != null)) {
                return "--route names etcd shards: not with --out-wal or --out-kine (one output a run)";
            }
            if (!follow) {
                return untilRevision != 0 || cutover != null ? "--until-revision and --cutover go with --follow" : null;
            }
            if (offline.outWal != null && offline.outKine != null) return "--out-wal and --out-kine: one output at a time";
            if ((offline.outWal != null || offline.outKine != null) && o.endpoints() != null && !o.endpoints().isEmpty()) {
                return "--out-wal, --out-kine or --endpoints: one output at a time";
            }
            if (o.dryRun()) return "--follow and --dry-run: a follow writes; --dry-run alone plans the copy";
            if (untilRevision < 0) return "--until-revision must be a revision (1 or more)";
            if (cutover != null && java.nio.file.Files.exists(cutover)) {
                return "--cutover " + cutover + " exists already: remove it first (the follow would cut over as soon as it has copied)";
            }
            if (marker == null || marker.isEmpty()) return "--marker must name a key";
            if (pipeline < 1 || pipeline > 1024) return "--pipeline must be between 1 and 1024";
            if (coalesce < 1 || coalesce > 1024) return "--coalesce must be between 1 and 1024";
            return null;
        }
    }

    @FunctionalInterface
    interface FeedOpener {
        ChangeFeed open() throws IOException;
    }

    /** A follow: the copy, the source's changes, the cut-over and its verify; the exit code. */
    static int follow(PrintWriter out, PrintWriter err, WriteOut writeOut, FeedOpener open, MigrateOptions o, FollowMixin f) {
        if (writeOut.check("walmigrate", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        String invalid = o.validate();
        if (invalid != null) {
            err.println("walmigrate: " + invalid);
            return ExitCode.USAGE.code();
        }
        try (dev.walkit.cli.StopOnSignal stop = new dev.walkit.cli.StopOnSignal("walmigrate")) {
            // A failure after a signal exits with the failure's code, not the signal's (stop.done both ways).
            return stop.done(follow(out, err, writeOut, open, o, f, stop, null, true, o.prefix()));
        }
    }

    private static int follow(PrintWriter out, PrintWriter err, WriteOut writeOut, FeedOpener open, MigrateOptions o, FollowMixin f,
                              dev.walkit.cli.StopOnSignal stop, Routes except, boolean alone, String scope) {
        try (EarlyClient target = EarlyClient.connect(o); ChangeFeed feed = open.open()) {
            // Shards followed at once share the terminal: no progress line for them.
            PrintWriter progress = alone && Cli.stderrIsTerminal() ? err : null;
            Follow.Result r = new Follow(o, new Follow.Until(f.untilRevision, f.cutover, f.marker, f.pipeline, f.coalesce), err, progress, stop::stopped, except, scope)
                    .run(feed, target);
            MigrationReport c = r.copy();
            ExitCode code = r.stopped() != null || !c.errors().isEmpty() || !c.tooLarge().isEmpty() ? ExitCode.FAILED
                    : c.conflictCount() > 0 || r.follow().conflicts() > 0 || !r.follow().verify().equal() ? ExitCode.CONFLICTS : ExitCode.OK;
            Output.follow(out, writeOut.format(), feed.describe(), String.join(",", o.endpoints()), r, code);
            out.flush();
            for (String t : c.tooLarge()) err.println("walmigrate: too large for any request: " + t);
            for (String e : c.errors()) err.println("walmigrate: " + e);
            if (r.stopped() != null) err.println("walmigrate: " + r.stopped());
            return code.code();
        } catch (Exception e) {
            return failed(err, e);
        }
    }

    /** {@code --out-wal DIR} or {@code --out-kine DIR} with {@code --follow}: written as the source changes, published at the cut-over. */
    static int followOffline(PrintWriter out, PrintWriter err, WriteOut writeOut, FeedOpener open, MigrateOptions o, FollowMixin f, OfflineMixin offline) {
        if (writeOut.check("walmigrate", err, OutputFormat.common()) != null) return ExitCode.USAGE.code();
        boolean wal = offline.outWal != null;
        Path dir = wal ? offline.outWal : offline.outKine;
        String refusal = wal ? OfflineWal.refusal(dir) : OfflineKine.refusal(dir);
        if (refusal != null && !dev.walkit.format.output.OutputDir.unfinishedSwitch(dir)) {
            err.println("walmigrate: " + refusal);
            return ExitCode.USAGE.code();
        }
        try (dev.walkit.cli.StopOnSignal stop = new dev.walkit.cli.StopOnSignal("walmigrate")) {
            return stop.done(followOffline(out, err, writeOut, open, o, f, wal, dir, stop));
        }
    }

    private static int followOffline(PrintWriter out, PrintWriter err, WriteOut writeOut, FeedOpener open, MigrateOptions o, FollowMixin f, boolean wal,
                                     Path dir, dev.walkit.cli.StopOnSignal stop) {
        try (ChangeFeed feed = open.open()) {
            Follow.Stager stager = wal ? copy -> OfflineWal.stage(copy, dir, o.leaseTtl(), true) : copy -> OfflineKine.stage(copy, dir, o.leaseTtl(), true);
            Follow.Result r = new Follow(o, new Follow.Until(f.untilRevision, f.cutover, f.marker), err, Cli.stderrIsTerminal() ? err : null, stop::stopped)
                    .runOffline(feed, stager, java.time.Instant.now());
            ExitCode code = r.stopped() != null ? ExitCode.FAILED : ExitCode.OK;
            Output.follow(out, writeOut.format(), feed.describe(), dir.resolve(wal ? Wal.WAL_FILE : OfflineKine.FILE).toString(), r, code);
            out.flush();
            if (r.stopped() != null) err.println("walmigrate: " + r.stopped());
            return code.code();
        } catch (Exception e) {
            return failed(err, e);
        }
    }

    /** The target options, shared by the subcommands as a mixin. */
    static final class TargetMixin {
        @ArgGroup(exclusive = false, multiplicity = "0..1", heading = "Target:%n")
        Target t = new Target();
    }
}
