package dev.walkit.cli;

import picocli.CommandLine.Option;

import java.io.PrintWriter;

/**
 * The output option every tool shares, as a picocli mixin: {@code -w/--write-out simple|json|table}, with
 * {@code --json} kept as an alias of {@code -w json}.
 */
public class WriteOut {
    @Option(names = {"-w", "--write-out"}, paramLabel = "simple|json|table", converter = OutputFormat.Parse.class, completionCandidates = Candidates.Common.class,
            description = "Output format: simple (lines), json (one document with a schema version), table (default: simple).")
    OutputFormat format;

    @Option(names = "--json", description = "Same as -w json.")
    boolean json;

    /**
     * {@code -w simple|json|table|html}: the option of a command that also writes a page (waldoctor diagnose), listed,
     * parsed and completed with html; every other command's -w neither lists nor takes it.
     */
    public static final class Page {
        @Option(names = {"-w", "--write-out"}, paramLabel = "simple|json|table|html", converter = OutputFormat.ParsePage.class,
                completionCandidates = Candidates.Formats.class,
                description = "Output format: simple (lines), json (one document with a schema version), table, html (one self-contained page) "
                        + "(default: simple).")
        OutputFormat format;

        @Option(names = "--json", description = "Same as -w json.")
        boolean json;

        /** As a {@link WriteOut}, for its check and format. */
        public WriteOut options() {
            return of(format, json);
        }
    }

    /** As picocli would set it from {@code -w format} (null when absent) and {@code --json}. */
    public static WriteOut of(OutputFormat format, boolean json) {
        WriteOut w = new WriteOut();
        w.format = format;
        w.json = json;
        return w;
    }

    /** What -w said, null when it was not given. */
    public OutputFormat writeOut() {
        return format;
    }

    public boolean json() {
        return json;
    }

    /** The format asked for; {@link #check} first. */
    public OutputFormat format() {
        return json ? OutputFormat.JSON : format == null ? OutputFormat.SIMPLE : format;
    }

    /**
     * Null when the options agree and the command supports the format, else the one-line usage error,
     * already printed to {@code err} as {@code command: message}.
     */
    public String check(String command, PrintWriter err, OutputFormat... supported) {
        String problem = null;
        if (json && format != null && format != OutputFormat.JSON) problem = "--json and -w " + format.label() + " exclude each other";
        else {
            boolean ok = false;
            for (OutputFormat f : supported) ok |= f == format();
            if (!ok) problem = "-w " + format().label() + " is not supported here (" + labels(supported) + ")";
        }
        if (problem != null) {
            err.println(command + ": " + problem);
            err.flush();
        }
        return problem;
    }

    private static String labels(OutputFormat... fs) {
        StringBuilder b = new StringBuilder();
        for (OutputFormat f : fs) b.append(b.length() == 0 ? "" : ", ").append(f.label());
        return b.toString();
    }
}
