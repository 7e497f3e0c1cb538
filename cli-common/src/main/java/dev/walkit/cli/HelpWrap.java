package dev.walkit.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Help and banner text wrapped at word boundaries (spaces, never inside a word: not {@code ~/.cache} after its dot,
 * not {@code --no-index} after its dash) to the terminal's width. Help is rendered unwrapped (one line a paragraph, an
 * option a line) and wrapped here, the prebuilt help ({@link FastStart}) and picocli's alike. A wrapped line goes on
 * under where its text began: an option's description under the description, a synopsis under the command's first
 * argument, a paragraph under its own indent. Colour (ANSI SGR sequences) takes no width.
 */
public final class HelpWrap {
    /** The width help is wrapped to when the terminal's is not known (a pipe, a file, a test). */
    public static final int DEFAULT = 80;
    private static final Pattern SGR = Pattern.compile("\u001b\\[[0-9;]*m");
    /** An option row: its names, two spaces or more, its description. */
    /** A row of the options or parameters: its names (an option's, or a parameter's label), two spaces or more, its description. */
    private static final Pattern OPTION = Pattern.compile("^( {1,8}\\S.{0,40}?  +)(\\S.*)$");
    private static final Pattern SYNOPSIS = Pattern.compile("^(Usage: \\S+(?: [a-z][a-z0-9-]*)* )(.*)$");

    /** Set (to true) while the build renders help to wrap at run time ({@link DocGen}): nothing is wrapped. */
    public static final String UNWRAPPED = "walkit.help.unwrapped";

    private HelpWrap() {
    }

    /**
     * The width to wrap to: the terminal's ({@code COLUMNS}, which bin/_launch exports for help on a terminal) when
     * standard output is one, between 40 and 200; else {@link #DEFAULT}.
     */
    public static int width() {
        if (Boolean.getBoolean(UNWRAPPED)) return Integer.MAX_VALUE;
        if (System.console() == null) return DEFAULT;
        try {
            int c = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "").strip());
            return Math.max(40, Math.min(200, c));
        } catch (NumberFormatException e) {
            return DEFAULT;
        }
    }

    /** {@code text} with every line longer than {@code width} wrapped at spaces. */
    public static String wrap(String text, int width) {
        return wrap(text, width, -1);
    }

    /**
     * As {@link #wrap(String, int)}, each wrapped line going on at column {@code indent} (a table's second column),
     * or where its text began when {@code indent} is negative or leaves a word no room.
     */
    public static String wrap(String text, int width, int indent) {
        StringBuilder out = new StringBuilder(text.length() + 64);
        int from = 0;
        while (from <= text.length()) {
            int nl = text.indexOf('\n', from);
            String line = nl < 0 ? text.substring(from) : text.substring(from, nl);
            boolean cr = line.endsWith("\r");
            if (cr) line = line.substring(0, line.length() - 1);
            wrapLine(line, width, indent, out);
            if (nl < 0) break;
            out.append(cr ? "\r\n" : "\n");
            from = nl + 1;
        }
        return out.toString();
    }

    private static void wrapLine(String line, int width, int hanging, StringBuilder out) {
        String plain = SGR.matcher(line).replaceAll("");
        if (plain.length() <= width) {
            out.append(line);
            return;
        }
        int indent = hanging >= 0 && hanging <= width / 2 ? hanging : continuation(plain, width);
        // The words, each with its colour codes; a run of spaces between them is kept where the line is not broken.
        int col = 0;
        int i = 0;
        int n = line.length();
        boolean first = true;
        while (i < n) {
            int spaces = i;
            while (spaces < n && line.charAt(spaces) == ' ') spaces++;
            int end = spaces;
            int visible = 0;
            while (end < n && line.charAt(end) != ' ') {
                if (line.charAt(end) == '\u001b') {
                    Matcher m = SGR.matcher(line).region(end, n);
                    if (m.lookingAt()) {
                        end = m.end();
                        continue;
                    }
                }
                end++;
                visible++;
            }
            String gap = line.substring(i, spaces);
            String word = line.substring(spaces, end);
            if (visible == 0) { // trailing spaces, or colour codes alone
                out.append(word);
                i = end;
                continue;
            }
            if (!first && col + gap.length() + visible > width && col > indent) {
                out.append('\n').append(" ".repeat(indent));
                col = indent;
            } else {
                out.append(gap);
                col += gap.length();
            }
            out.append(word);
            col += visible;
            first = false;
            i = end;
        }
    }

    /** Where a wrapped line of {@code plain} goes on: under an option's description, a synopsis's arguments, or the line's indent. */
    private static int continuation(String plain, int width) {
        int indent;
        Matcher o = OPTION.matcher(plain);
        Matcher s = SYNOPSIS.matcher(plain);
        if (o.matches()) indent = o.group(1).length() + 2;
        else if (s.matches()) indent = s.group(1).length();
        else {
            indent = 0;
            while (indent < plain.length() && plain.charAt(indent) == ' ') indent++;
            if (plain.startsWith("- ", indent) || plain.startsWith("* ", indent)) indent += 2;
            else if (indent >= 12) indent += 2; // a description under an option too long for its column: it goes on 2 further in
        }
        // Never so deep that a word has no room: then under the line's own start.
        return indent > width / 2 ? Math.min(8, width / 4) : indent;
    }
}
