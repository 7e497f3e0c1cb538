package dev.walkit.cli;

import java.util.Locale;

/** The output formats of {@code -w/--write-out}, as etcdctl names them. */
public enum OutputFormat {
    /** Lines for a person at a terminal (the default). */
    SIMPLE,
    /** One JSON document with a {@code schema} version field. */
    JSON,
    /** Bordered tables, as etcdctl's {@code -w table}. */
    TABLE,
    /** One self-contained HTML page (waldoctor diagnose's report). */
    HTML;

    /** The formats every report has; {@link #HTML} is diagnose's alone. */
    public static OutputFormat[] common() {
        return new OutputFormat[] {SIMPLE, JSON, TABLE};
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The format named {@code s}, or null. */
    public static OutputFormat named(String s) {
        for (OutputFormat f : values()) {
            if (f.label().equals(s)) return f;
        }
        return null;
    }

    /** {@code -w} of every report: simple, json, table (html is diagnose's alone: {@link ParsePage}). */
    static final class Parse extends Converter<OutputFormat> {
        @Override
        protected OutputFormat parse(String s) {
            OutputFormat f = named(s);
            if (f == null || f == HTML) throw new IllegalArgumentException("'" + s + "' is not an output format of this command (simple, json, table)");
            return f;
        }
    }

    /** {@code -w} of a command that also writes a page: simple, json, table, html. */
    static final class ParsePage extends Converter<OutputFormat> {
        @Override
        protected OutputFormat parse(String s) {
            OutputFormat f = named(s);
            if (f == null) throw new IllegalArgumentException("'" + s + "' is not an output format (simple, json, table, html)");
            return f;
        }
    }
}
