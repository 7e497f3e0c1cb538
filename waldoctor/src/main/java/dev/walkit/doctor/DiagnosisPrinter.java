package dev.walkit.doctor;

import dev.walkit.cli.OutputFormat;

import java.io.PrintWriter;

/** Prints a {@link Diagnosis} in one {@code -w} format: one implementation a format. */
interface DiagnosisPrinter {
    void print(PrintWriter out, Diagnosis d);

    static DiagnosisPrinter of(OutputFormat format) {
        return switch (format) {
            case SIMPLE -> new DiagnosisText();
            case JSON -> new DiagnosisJson();
            case TABLE -> new DiagnosisTable();
        };
    }

    /** A revision, or "-" for none. */
    static String rev(long r) {
        return r < 0 ? "-" : Long.toString(r);
    }

    /** A revision, or null (an empty cell) for none. */
    static Long opt(long v) {
        return v < 0 ? null : v;
    }
}
