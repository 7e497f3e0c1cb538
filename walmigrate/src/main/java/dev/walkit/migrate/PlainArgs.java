package dev.walkit.migrate;

import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.WriteOut;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The migration job's command lines, parsed without picocli (building picocli's model of walmigrate
 * is ≈ 0.2 s of a run): {@code kine --sqlite F} or {@code wal --wal P}, then the target options
 * {@code --endpoints}, {@code --prefix}, {@code --batch}, {@code --concurrency}, {@code --dry-run},
 * {@code --lease-ttl} and {@code -w}/{@code --write-out}/{@code --json}, as {@code --opt value} or
 * {@code --opt=value}, each at most once, values plain (no leading {@code -} or {@code @}, numbers in
 * digits). Anything else (TLS or user options, {@code --out-wal}, {@code verify}, a repeated option,
 * help, an error) gives null: picocli parses it and gives its own answer. {@code PlainArgsTest} checks
 * that whatever this accepts, picocli parses to the same options.
 */
final class PlainArgs {
    /** A parsed command line: the source, the output format and the options. */
    record Parsed(String subcommand, Path source, WriteOut writeOut, MigrateOptions options) {
    }

    private static final List<String> VALUED = List.of("--sqlite", "--wal", "--endpoints", "--prefix", "--batch", "--concurrency",
            "--lease-ttl", "-w", "--write-out");

    private PlainArgs() {
    }

    static Parsed parse(String[] args) {
        if (args.length == 0 || !(args[0].equals("kine") || args[0].equals("wal"))) return null;
        String sub = args[0];
        String source = null, endpoints = null, prefix = null, batch = null, concurrency = null, leaseTtl = null, format = null;
        boolean json = false, dryRun = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
                if (!VALUED.contains(name) || name.equals("-w")) return null;
            } else if (VALUED.contains(a)) {
                if (++i >= args.length) return null;
                value = args[i];
            }
            if (value != null && !plainValue(value)) return null;
            switch (name) {
                case "--sqlite" -> {
                    if (!sub.equals("kine") || source != null) return null;
                    source = value;
                }
                case "--wal" -> {
                    if (!sub.equals("wal") || source != null) return null;
                    source = value;
                }
                case "--endpoints" -> {
                    if (endpoints != null) return null;
                    endpoints = value;
                }
                case "--prefix" -> {
                    if (prefix != null) return null;
                    prefix = value;
                }
                case "--batch" -> {
                    if (batch != null || !digits(value)) return null;
                    batch = value;
                }
                case "--concurrency" -> {
                    if (concurrency != null || !digits(value)) return null;
                    concurrency = value;
                }
                case "--lease-ttl" -> {
                    if (leaseTtl != null || !digits(value)) return null;
                    leaseTtl = value;
                }
                case "-w", "--write-out" -> {
                    if (format != null || OutputFormat.named(value) == null) return null;
                    format = value;
                }
                case "--json" -> {
                    if (json) return null;
                    json = true;
                }
                case "--dry-run" -> {
                    if (dryRun) return null;
                    dryRun = true;
                }
                default -> {
                    return null;
                }
            }
        }
        // Without any target option picocli leaves the target group unset (no defaults applied): its call.
        if (source == null || (endpoints == null && !dryRun && prefix == null && batch == null && concurrency == null && leaseTtl == null)) {
            return null;
        }
        if (endpoints != null && (endpoints.contains("\"") || Arrays.asList(endpoints.split(",", -1)).contains(""))) return null;
        try {
            List<String> eps = endpoints == null ? null : Arrays.asList(endpoints.split(",", -1));
            MigrateOptions o = new MigrateOptions(eps == null ? null : new ArrayList<>(eps), prefix == null ? "" : prefix,
                    batch == null ? 128 : Integer.parseInt(batch), concurrency == null ? 8 : Integer.parseInt(concurrency), dryRun,
                    leaseTtl == null ? 3600 : Long.parseLong(leaseTtl), null, null, null, null, null);
            return new Parsed(sub, Path.of(source), WriteOut.of(format == null ? null : OutputFormat.named(format), json), o);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** A value picocli takes as it is: not empty, not an option's or an @file's spelling. */
    private static boolean plainValue(String v) {
        return !v.isEmpty() && !v.startsWith("-") && !v.startsWith("@");
    }

    /** Up to 9 decimal digits: a number every converter reads the same way. */
    private static boolean digits(String v) {
        return v.length() <= 9 && v.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
