package dev.walkit.doctor;

import dev.walkit.cli.OutputFormat;

import java.io.PrintWriter;

/** Prints a {@link Diagnosis} in one {@code -w} format: one implementation a format. */
interface DiagnosisPrinter {
    void print(PrintWriter out, Diagnosis d);

    /** The printer of {@code format}; the HTML page also says what was examined ({@code examined}, asked only for it). */
    static DiagnosisPrinter of(OutputFormat format, java.util.function.Supplier<DiagnosisHtml.Examined> examined) {
        return switch (format) {
            case SIMPLE -> new DiagnosisText();
            case JSON -> new DiagnosisJson();
            case TABLE -> new DiagnosisTable();
            case HTML -> new DiagnosisHtml(examined.get());
        };
    }

    /** The last line of the text and table forms: the verdict and the exit code. */
    static String verdictLine(Diagnosis d) {
        String words = switch (d.verdict()) {
            case HEALTHY -> "healthy";
            case TORN_TAIL -> "torn tail only";
            case DAMAGED, RULES_BROKEN -> "damaged";
        };
        return "verdict: " + words + " (exit " + d.exitCode().code() + ")";
    }
}
