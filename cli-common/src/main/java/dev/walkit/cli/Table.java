package dev.walkit.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A bordered text table as etcdctl's {@code -w table} prints them: headers in capitals, numbers
 * right-aligned, everything else left-aligned.
 * <pre>
 * +-----------+--------+
 * |   FIELD   | VALUE  |
 * +-----------+--------+
 * | records   |   2597 |
 * +-----------+--------+
 * </pre>
 */
public final class Table {
    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = headers.clone();
    }

    /** A row; numbers as they are (as in the JSON, no separators), null as "-". */
    public Table row(Object... cells) {
        if (cells.length != headers.length) throw new IllegalArgumentException(cells.length + " cells for " + headers.length + " columns");
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) r[i] = text(cells[i]);
        rows.add(r);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    private static String text(Object o) {
        if (o == null) return "-";
        return o.toString().replace('\n', ' ');
    }

    private static boolean numeric(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> Character.isDigit(c) || c == '-' || c == '.') && Character.isDigit(s.charAt(s.length() - 1));
    }

    public void print(PrintWriter out) {
        int[] w = new int[headers.length];
        for (int i = 0; i < w.length; i++) w[i] = headers[i].length();
        for (String[] r : rows) for (int i = 0; i < w.length; i++) w[i] = Math.max(w[i], r[i].length());
        StringBuilder rule = new StringBuilder("+");
        for (int x : w) rule.append("-".repeat(x + 2)).append('+');
        out.println(rule);
        StringBuilder h = new StringBuilder("|");
        for (int i = 0; i < w.length; i++) {
            int pad = w[i] - headers[i].length();
            h.append(' ').append(" ".repeat(pad / 2)).append(headers[i].toUpperCase(java.util.Locale.ROOT)).append(" ".repeat(pad - pad / 2)).append(" |");
        }
        out.println(h);
        out.println(rule);
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder("|");
            for (int i = 0; i < w.length; i++) {
                String pad = " ".repeat(w[i] - r[i].length());
                line.append(' ').append(numeric(r[i]) ? pad + r[i] : r[i] + pad).append(" |");
            }
            out.println(line);
        }
        if (!rows.isEmpty()) out.println(rule);
    }
}
