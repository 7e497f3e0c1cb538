package dev.walkit.migrate;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code --help} says: each source command names both offline outputs, and the tool names its four sources. */
class WalMigrateHelpTest {
    private static String help(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new WalMigrate());
        cl.setOut(new PrintWriter(out, true));
        assertEquals(0, cl.execute(args));
        // Unwrapped, so that a phrase split across picocli's lines is still one phrase.
        return out.toString().replaceAll("\\s+", " ");
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
        String h = help("--help");
        assertTrue(h.contains("kine's SQLite state.db, a WAL, etcd's db or a live etcd"), h);
        for (String command : new String[] {"kine", "wal", "etcd-db", "etcd", "verify"}) assertTrue(h.contains(" " + command + " "), command + ": " + h);
    }
}
