package dev.walkit.cli;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Help wrapped at spaces only, to any width: no word split, every line within the width unless one word is wider. */
class HelpWrapTest {
    static final String HELP = String.join("\n",
            "Usage: waldoctor get [-hV] [--json] [--no-index] [--show-secrets] [-w=simple|json|table] PATH ARGS...",
            "A key's value and fields, at the latest revision or at R; -o: the object decoded whole (a Kubernetes protobuf object, or JSON), as auger decodes it.",
            "      PATH ARGS...     A WAL file or data directory (or an etcd or kine db), then the command's arguments; its options go anywhere (waldoctor get --rev 5 PATH KEY).",
            "      --no-index       Read the WAL whole, neither using nor saving its index (kept in $XDG_CACHE_HOME/walkit/index, else ~/.cache/walkit/index, so that the next open of the same unchanged file is quick).",
            "  -w, --write-out=simple|json|table",
            "  - a list item that goes on and on past the width of any reasonable terminal, and then some more words to wrap",
            "");

    @Test
    void wrapsAtSpacesOnlyUnderWhereTheTextBegan() {
        String w = HelpWrap.wrap(HELP, 80);
        List<String> lines = w.lines().toList();
        for (String l : lines) assertTrue(l.length() <= 80, "longer than 80: «" + l + "»");
        assertTrue(w.contains("~/.cache/walkit/index"), "a path is one word:\n" + w);
        assertTrue(w.contains("--no-index"), w);
        // An option's description goes on under the description (+2), a synopsis under its arguments, a list item under its text.
        int desc = lines.get(lines.indexOf(lines.stream().filter(l -> l.startsWith("      --no-index")).findFirst().orElseThrow())).indexOf("Read");
        assertEquals(" ".repeat(desc + 2) + lines.get(lines.indexOf(lines.stream().filter(l -> l.startsWith("      --no-index")).findFirst().orElseThrow()) + 1).strip(),
                lines.get(lines.indexOf(lines.stream().filter(l -> l.startsWith("      --no-index")).findFirst().orElseThrow()) + 1));
        assertTrue(lines.get(1).startsWith(" ".repeat("Usage: waldoctor get ".length()) + "["), lines.get(1));
        String item = lines.stream().filter(l -> l.startsWith("  - a list")).findFirst().orElseThrow();
        assertTrue(lines.get(lines.indexOf(item) + 1).startsWith("    ") && !lines.get(lines.indexOf(item) + 1).startsWith("     "), w);
        // Nothing lost or added but line breaks and indents.
        assertEquals(words(HELP), words(w));
        assertTrue(w.endsWith("\n"), "the last newline is kept");
    }

    @Test
    void everyWidthKeepsEveryWordWhole() {
        for (int width : new int[] {40, 57, 80, 100, 133, 200}) {
            String w = HelpWrap.wrap(HELP, width);
            assertEquals(words(HELP), words(w), "width " + width);
            for (String l : w.lines().toList()) {
                assertTrue(l.length() <= width || !l.strip().contains(" "), width + ": «" + l + "»");
            }
        }
        assertEquals(HELP, HelpWrap.wrap(HELP, 10_000), "wide enough: unchanged");
    }

    @Test
    void colourTakesNoWidth() {
        String bold = "\u001b[1m";
        String off = "\u001b[21m\u001b[0m";
        String line = "      " + bold + "--no-index" + off + "       Read the WAL whole, neither using nor saving its index, so that the next open is quick.";
        String w = HelpWrap.wrap(line, 60);
        for (String l : w.lines().toList()) assertTrue(l.replaceAll("\u001b\\[[0-9;]*m", "").length() <= 60, "«" + l + "»");
        assertTrue(w.startsWith("      " + bold + "--no-index" + off + "       Read"), w);
    }

    private static List<String> words(String s) {
        return Arrays.asList(s.replaceAll("\u001b\\[[0-9;]*m", "").strip().split("\\s+"));
    }
}
