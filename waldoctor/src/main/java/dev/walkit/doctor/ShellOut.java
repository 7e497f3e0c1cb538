package dev.walkit.doctor;

import java.io.PrintWriter;
import java.io.Writer;

/**
 * Where a shell command's answers go, and where its errors go: on a terminal both to the terminal
 * ({@code error: …}); from a pipe the answers to stdout and the errors to stderr as {@code line N: …},
 * the line of input that caused them (as sqlite3 and psql report a script's errors).
 */
final class ShellOut extends PrintWriter {
    private final PrintWriter errors;
    /** The input line being run (from 1), or 0 on a terminal. */
    int line;

    /** Errors on the same stream as the answers, as {@code error: …}. */
    ShellOut(Writer out) {
        this(out, null);
    }

    /** What a one-shot command's errors start with ({@code waldoctor get: }), or null in the shell. */
    private final String prefix;

    /** Errors on {@code errors}, as {@code line N: …}. */
    ShellOut(Writer out, PrintWriter errors) {
        this(out, errors, null);
    }

    /** Errors on {@code errors} as {@code PREFIX…} (a one-shot command's: {@code waldoctor get: key not found: /x}). */
    ShellOut(Writer out, PrintWriter errors, String prefix) {
        super(out, true);
        this.errors = errors;
        this.prefix = prefix;
    }

    void error(String msg) {
        if (errors == null) {
            println("error: " + msg);
            return;
        }
        flush();
        errors.println(prefix != null ? prefix + msg : "line " + line + ": " + msg);
        errors.flush();
    }
}
