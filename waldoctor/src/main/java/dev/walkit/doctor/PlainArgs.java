package dev.walkit.doctor;

import dev.walkit.cli.OutputFormat;
import dev.walkit.cli.WriteOut;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The command line runbooks and CI write to waldoctor, parsed without picocli: {@code diagnose} then {@code -w F},
 * {@code --write-out F}, {@code --write-out=F}, {@code --json}, {@code --no-hash}, {@code --report FILE},
 * {@code --report=FILE} and one PATH, each at most once. Anything else (another command, another spelling, a repeated option, an unknown value, an
 * {@code @file}, help) gives null: picocli parses it and gives its own answer or error. {@code PlainArgsTest} checks
 * that whatever this accepts, picocli parses to the same options. {@code serve}'s and {@code shell}'s plain forms too
 * ({@link #serve}, {@link #shell}): a client waits on serve's start, an operator on the shell's.
 */
final class PlainArgs {
    private PlainArgs() {
    }

    static WalDoctor.Diagnose diagnose(String[] args) {
        if (args.length < 2 || !args[0].equals("diagnose")) return null;
        OutputFormat format = null;
        boolean json = false;
        boolean noHash = false;
        String path = null;
        String report = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "-w", "--write-out" -> {
                    if (format != null || (format = OutputFormat.named(value)) == null) return null;
                    i++;
                }
                case "--json" -> {
                    if (json) return null;
                    json = true;
                }
                case "--no-hash" -> {
                    if (noHash) return null;
                    noHash = true;
                }
                case "--report" -> {
                    if (report != null || value == null || !plainWord(value)) return null;
                    report = value;
                    i++;
                }
                default -> {
                    if (a.startsWith("--write-out=")) {
                        if (format != null || (format = OutputFormat.named(a.substring(12))) == null) return null;
                    } else if (a.startsWith("--report=")) {
                        if (report != null || a.length() == 9) return null;
                        report = a.substring(9);
                    } else if (path == null && plainWord(a)) {
                        path = a;
                    } else {
                        return null;
                    }
                }
            }
        }
        if (path == null) return null;
        WalDoctor.Diagnose d = new WalDoctor.Diagnose();
        try {
            d.path = Path.of(path);
            d.report = report == null ? null : Path.of(report);
        } catch (InvalidPathException e) {
            return null;
        }
        d.given = WriteOut.of(format, json);
        d.noHash = noHash;
        return d;
    }

    /**
     * {@code serve PATH} with {@code --listen HOST:PORT} (or {@code --listen=}), {@code --rev R} (or {@code --rev=}; digits)
     * and {@code --no-index}, each at most once: how a client is pointed at a store. TLS and anything else: null, picocli's.
     */
    static Serve serve(String[] args) {
        if (args.length < 2 || !args[0].equals("serve")) return null;
        String listen = null;
        String rev = null;
        boolean noIndex = false;
        String path = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--listen" -> {
                    if (listen != null || value == null || !plainWord(value)) return null;
                    listen = value;
                    i++;
                }
                case "--rev" -> {
                    if (rev != null || value == null || !digits(value)) return null;
                    rev = value;
                    i++;
                }
                case "--no-index" -> {
                    if (noIndex) return null;
                    noIndex = true;
                }
                default -> {
                    if (a.startsWith("--listen=")) {
                        if (listen != null || a.length() == 9) return null;
                        listen = a.substring(9);
                    } else if (a.startsWith("--rev=")) {
                        if (rev != null || !digits(a.substring(6))) return null;
                        rev = a.substring(6);
                    } else if (path == null && plainWord(a)) {
                        path = a;
                    } else {
                        return null;
                    }
                }
            }
        }
        if (path == null) return null;
        Serve s = new Serve();
        try {
            s.path = Path.of(path);
        } catch (InvalidPathException e) {
            return null;
        }
        if (listen != null) s.listen = listen;
        if (rev != null) s.rev = Long.parseLong(rev);
        s.noIndex = noIndex;
        return s;
    }

    /** {@code shell PATH} with {@code --no-index} and {@code --show-secrets}, each at most once; anything else: null, picocli's. */
    static WalDoctor.ShellCmd shell(String[] args) {
        if (args.length < 2 || !args[0].equals("shell")) return null;
        boolean noIndex = false;
        boolean secrets = false;
        String path = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--no-index") && !noIndex) noIndex = true;
            else if (a.equals("--show-secrets") && !secrets) secrets = true;
            else if (path == null && plainWord(a)) path = a;
            else return null;
        }
        if (path == null) return null;
        WalDoctor.ShellCmd s = new WalDoctor.ShellCmd();
        try {
            s.path = Path.of(path);
        } catch (InvalidPathException e) {
            return null;
        }
        s.noIndex = noIndex;
        s.showSecrets = secrets;
        return s;
    }

    /**
     * {@code get PATH KEY}, with {@code --no-index} at most once, nothing else (the one-shot read a second open of a large
     * store answers in half a second, picocli's model of every command being most of it); anything else: null, picocli's.
     */
    static WalDoctor.OneShot get(String[] args) {
        if (args.length < 3 || !args[0].equals("get")) return null;
        boolean noIndex = false;
        List<String> words = new java.util.ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--no-index") && !noIndex) noIndex = true;
            else if (plainWord(a)) words.add(a);
            else return null;
        }
        if (words.size() != 2) return null;
        try {
            Path.of(words.get(0));
        } catch (InvalidPathException e) {
            return null;
        }
        WalDoctor.OneShot g = new WalDoctor.OneShot(Commands.table().get("get"));
        g.all.addAll(words);
        g.noIndex = noIndex;
        return g;
    }

    /** 1 to 18 decimal digits: a long picocli reads the same. */
    private static boolean digits(String s) {
        if (s.isEmpty() || s.length() > 18) return false;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
        return true;
    }

    /** A word picocli can only take as a value or PATH: not an option, not an @file. */
    private static boolean plainWord(String a) {
        return !a.isEmpty() && !a.startsWith("-") && !a.startsWith("@");
    }
}
