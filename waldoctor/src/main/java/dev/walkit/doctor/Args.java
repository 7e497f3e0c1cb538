package dev.walkit.doctor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A command's words: positionals and {@code --flag [value]} options. Parsing returns values, not exceptions. */
public final class Args {
    final List<String> positional = new ArrayList<>();
    final Map<String, String> options = new HashMap<>();
    String error;

    /** Parses {@code words}; {@code valued} names the options that take a value, {@code switches} those that do not. */
    public static Args parse(List<String> words, Set<String> valued, Set<String> switches) {
        Args a = new Args();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("-o")) w = "--output"; // etcdctl's and kubectl's short form
            if (w.startsWith("--") && w.length() > 2) {
                String name = w;
                String value = null;
                int eq = w.indexOf('=');
                if (eq > 0) {
                    name = w.substring(0, eq);
                    value = w.substring(eq + 1);
                }
                if (valued.contains(name)) {
                    if (value == null) {
                        if (i + 1 >= words.size()) {
                            a.error = name + " needs a value";
                            return a;
                        }
                        value = words.get(++i);
                    }
                    a.options.put(name, value);
                } else if (switches.contains(name) && value == null) {
                    a.options.put(name, "true");
                } else {
                    java.util.Set<String> known = new java.util.TreeSet<>(valued);
                    known.addAll(switches);
                    String near = dev.walkit.cli.Nearest.of(w, known);
                    a.error = "unknown option " + w + (near == null ? "" : " (did you mean " + near + "?)");
                    return a;
                }
            } else {
                a.positional.add(w);
            }
        }
        return a;
    }

    public String error() {
        return error;
    }

    public List<String> positional() {
        return positional;
    }

    public boolean has(String option) {
        return options.containsKey(option);
    }

    public String get(String option) {
        return options.get(option);
    }

    /** A numeric option, or {@code dflt}; -1 and an error when it is not a number. */
    public long number(String option, long dflt) {
        String v = options.get(option);
        if (v == null) return dflt;
        try {
            long n = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            error = option + " takes a non-negative number, not '" + v + "'";
            return -1;
        }
    }

    /**
     * Splits a command line into words as a shell does: whitespace-separated; "double" or 'single' quotes for words
     * with spaces; a backslash before a space or a quote takes it as it is (any other backslash stays, for a key's
     * {@code \xNN} and {@code \\}); a {@code #} that starts a word comments out the rest of the line.
     */
    public static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && quote != '\'' && i + 1 < line.length() && (Character.isWhitespace(line.charAt(i + 1)) || line.charAt(i + 1) == '"'
                    || line.charAt(i + 1) == '\'')) {
                cur.append(line.charAt(++i));
                any = true;
            } else if (quote == 0 && c == '#' && !any) {
                break;
            } else if (quote == 0 && (c == '"' || c == '\'')) {
                quote = c;
                any = true;
            } else if (c == quote) {
                quote = 0;
            } else if (Character.isWhitespace(c) && quote == 0) {
                if (any) out.add(cur.toString());
                cur.setLength(0);
                any = false;
            } else {
                cur.append(c);
                any = true;
            }
        }
        if (any) out.add(cur.toString());
        return out;
    }
}
