package dev.walkit.cli;

import java.util.Iterator;
import java.util.List;

/**
 * An option's values for shell completion ({@code @Option(completionCandidates = …)}), taken from the type that
 * parses them, so completion offers exactly what the tool accepts: picocli would offer an enum's constant
 * names ({@code POINT_IN_TIME}, {@code PAYLOAD_ONLY}), which the tools reject. A subclass names its source in
 * its constructor.
 */
public abstract class Candidates implements Iterable<String> {
    private final List<String> values;

    protected Candidates(List<String> values) {
        this.values = List.copyOf(values);
    }

    @Override
    public Iterator<String> iterator() {
        return values.iterator();
    }

    /** Whether {@code value} is one of them. */
    public boolean contains(String value) {
        return values.contains(value);
    }

    /** The {@code -w} formats of every report: simple, json, table. */
    public static final class Common extends Candidates {
        public Common() {
            super(java.util.Arrays.stream(OutputFormat.common()).map(OutputFormat::label).toList());
        }
    }

    /** The {@code -w} formats of a command that also writes a page (html too). */
    public static final class Formats extends Candidates {
        public Formats() {
            super(java.util.Arrays.stream(OutputFormat.values()).map(OutputFormat::label).toList());
        }
    }
}
