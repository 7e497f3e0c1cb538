package dev.walkit.verify;

import dev.walkit.format.pass.Level;
import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.WriteOut;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The command lines runbooks and CI write, parsed without picocli: {@code --level L}, {@code --level=L},
 * {@code --json}, {@code --jsonl}, {@code -q}, {@code --quiet}, {@code -w F}, {@code --write-out F},
 * {@code --write-out=F}, and one PATH, each at most once. Anything else (another spelling, a repeated
 * option, an unknown value, an {@code @file}, a subcommand, help) gives null: picocli parses it and
 * gives its own answer or error. {@code PlainArgsTest} checks that whatever this accepts, picocli parses
 * to the same options.
 */
final class PlainArgs {
    private PlainArgs() {
    }

    static WalVerify parse(String[] args) {
        Level level = null;
        OutputFormat format = null;
        boolean json = false, jsonl = false, quiet = false;
        String path = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--level" -> {
                    if (level != null || (level = Level.named(value)) == null) return null;
                    i++;
                }
                case "-w", "--write-out" -> {
                    if (format != null || (format = OutputFormat.named(value)) == null) return null;
                    i++;
                }
                case "--json" -> {
                    if (json) return null;
                    json = true;
                }
                case "--jsonl" -> {
                    if (jsonl) return null;
                    jsonl = true;
                }
                case "-q", "--quiet" -> {
                    if (quiet) return null;
                    quiet = true;
                }
                default -> {
                    if (a.startsWith("--level=")) {
                        if (level != null || (level = Level.named(a.substring(8))) == null) return null;
                    } else if (a.startsWith("--write-out=")) {
                        if (format != null || (format = OutputFormat.named(a.substring(12))) == null) return null;
                    } else if (path == null && plainWord(a)) {
                        path = a;
                    } else {
                        return null;
                    }
                }
            }
        }
        if (path == null) return null;
        WalVerify v = new WalVerify();
        try {
            v.path = Path.of(path);
        } catch (InvalidPathException e) {
            return null;
        }
        v.level = level == null ? Level.DECODE : level;
        v.writeOut = WriteOut.of(format, json);
        v.jsonl = jsonl;
        v.quiet = quiet;
        return v;
    }

    /** A word picocli can only take as PATH: not an option, not an @file, not the subcommand. */
    private static boolean plainWord(String a) {
        return !a.isEmpty() && !a.startsWith("-") && !a.startsWith("@") && !a.equals("generate-completion");
    }
}
