package dev.walkit.verify;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.OutputFormat;

import java.io.PrintWriter;

/** Prints a {@link VerifyReport} in one {@code -w} format: one implementation a format. */
interface VerifyPrinter {
    void print(PrintWriter out, VerifyReport r, ExitCode code);

    static VerifyPrinter of(OutputFormat format) {
        return switch (format) {
            case SIMPLE -> new SimplePrinter();
            case JSON -> new JsonPrinter();
            case TABLE -> new TablePrinter();
        };
    }

    /** A revision, or "-" for none. */
    static String rev(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }

    /** A count or revision, or null (an empty cell, JSON null) for none. */
    static Long opt(long v) {
        return v < 0 ? null : v;
    }
}
