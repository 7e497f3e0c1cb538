package dev.walkit.migrate;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code --help} says: each source command names both offline outputs, and the tool names its four sources. */
class WalMigrateHelpTest {
    /** The help's text as printed. */
    private static String raw(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new WalMigrate());
        cl.setOut(new PrintWriter(out, true));
        assertEquals(0, cl.execute(args));
        return out.toString();
    }

    /** Unwrapped, so that a phrase split across picocli's lines is still one phrase. */
    private static String help(String... args) {
        return raw(args).replaceAll("\\s+", " ");
    }

    @Test
    void everySourceCommandDescribesBothOfflineOutputs() {
        for (String source : new String[] {"kine", "wal", "etcd-db", "etcd"}) {
            String h = help(source, "--help");
            assertTrue(h.contains("With --out-wal DIR or --out-kine DIR instead of --endpoints"), source + ": " + h);
            assertTrue(h.contains("--out-kine=DIR") && h.contains("--out-wal=DIR"), source + ": " + h);
        }
    }

    @Test
    void theToolNamesItsFourSources() {
        String h = raw("--help");
        assertTrue(h.replaceAll("\\s+", " ").contains("kine's SQLite state.db, a WAL, etcd's db or a live etcd"), h);
        // Each in the Commands list: a line of its own beginning with its name and its description's first words.
        String[][] listed = {{"kine", "From kine's SQLite"}, {"wal", "From a WAL's"}, {"etcd", "From a live etcd"},
                {"etcd-db", "From etcd's db"}, {"verify", "Compare the source's"}};
        for (String[] c : listed) assertTrue(h.matches("(?s).*\\n  " + c[0] + " +" + java.util.regex.Pattern.quote(c[1]) + ".*"), c[0] + ": " + h);
    }
}
