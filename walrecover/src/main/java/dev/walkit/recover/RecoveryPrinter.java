package dev.walkit.recover;

import dev.walkit.cli.OutputFormat;

import java.io.PrintWriter;

/** Prints a {@link RecoveryReport} in one {@code -w} format: one implementation a format. */
interface RecoveryPrinter {
    void print(PrintWriter out, RecoveryReport r);

    static RecoveryPrinter of(OutputFormat format) {
        return switch (format) {
            case SIMPLE -> new SimplePrinter();
            case JSON -> new JsonPrinter();
            case TABLE -> new TablePrinter();
            case HTML -> throw new IllegalArgumentException("-w html is waldoctor diagnose's alone");
        };
    }
}
