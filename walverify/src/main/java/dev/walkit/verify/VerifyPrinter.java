package dev.walkit.verify;

import dev.walkit.format.pass.PassReport;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.OutputFormat;

import java.io.PrintWriter;

/** Prints a {@link PassReport} in one {@code -w} format: one implementation a format. */
interface VerifyPrinter {
    void print(PrintWriter out, PassReport r, ExitCode code);

    static VerifyPrinter of(OutputFormat format) {
        return switch (format) {
            case SIMPLE -> new SimplePrinter();
            case JSON -> new JsonPrinter();
            case TABLE -> new TablePrinter();
            case HTML -> throw new IllegalArgumentException("-w html is waldoctor diagnose's alone");
        };
    }
}
