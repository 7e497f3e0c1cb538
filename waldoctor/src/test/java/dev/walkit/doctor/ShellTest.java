package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import dev.walkit.format.Fixtures;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The REPL driven through jline's DumbTerminal over piped streams, and its piped (runbook) form. */
class ShellTest {
    private static StoreHistory index;

    @BeforeAll
    static void load() throws Exception {
        index = Pass.history(Fixtures.path("vectors/small/wal"), null);
    }

    @AfterAll
    static void close() throws Exception {
        index.close();
    }

    private static String interactive(String typed) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DumbTerminal t = new DumbTerminal("test", "dumb", new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8)), out, StandardCharsets.UTF_8)) {
            Shell.interactive(new ShellContext(index, false), t, null);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void hexdumpSaysWhenItShowsLessThanAskedAndRefusesANonPositiveLength(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        long size = index.file().size();
        String s = interactive("hexdump 16 999999999\nhexdump 0 -5\nquit\n");
        assertTrue(s.contains(String.format("(%,d bytes shown of the 999,999,999 asked: the file ends there)", size - 16)), s);
        assertTrue(s.contains("error: LEN must be 1 or more"), s);
        java.nio.file.Path wal = dir.resolve("wal");
        new dev.walkit.testdata.K8sWalGenerator(dev.walkit.testdata.K8sWalGenerator.Options.of(3, 3 << 20)).write(wal);
        try (StoreHistory big = Pass.history(wal, null)) {
            java.io.StringWriter out = new java.io.StringWriter();
            Shell.piped(new ShellContext(big, false), new java.io.BufferedReader(new java.io.StringReader("hexdump 0 2000000\n")),
                    new java.io.PrintWriter(out, true), new java.io.PrintWriter(new java.io.StringWriter(), true));
            assertTrue(out.toString().contains("(1,048,576 bytes shown of the 2,000,000 asked: hexdump shows at most 1 MiB at a time; OFFSET 1,048,576 goes on)"),
                    out.toString().substring(Math.max(0, out.toString().length() - 300)));
            assertEquals(65536, out.toString().lines().filter(l -> l.matches("^[0-9a-f]{8}  .*")).count(), "1 MiB, 16 bytes a line");
        }
    }

    @Test
    void getPrintsTheStoredKeyInItsOnePrintedFormNotTheFormTyped() throws Exception {
        String s = interactive("get /registry/configmaps/ns0/cm-\\x30\nquit\n"); // "\x30" is "0", typed escaped
        assertTrue(s.contains("key: /registry/configmaps/ns0/cm-0\n") || s.contains("key: /registry/configmaps/ns0/cm-0\r\n"), s);
        assertTrue(!s.contains("key: /registry/configmaps/ns0/cm-\\x30"), s);
    }

    @Test
    void atZeroIsTheLatestAsEtcdsRevZeroAndANegativeRevisionIsRefused() throws Exception {
        String s = interactive("at 5\nat 0\nstats\nat -3\nquit\n");
        assertTrue(s.contains("viewing the latest revision " + index.revision() + " (revision 0 is the latest, as etcd's --rev 0)"), s);
        assertTrue(!s.contains("viewing revision 0"), s);
        assertTrue(!s.substring(s.indexOf("as etcd's --rev 0")).contains("viewing revision 5"), "the view went back to the latest: " + s);
        assertTrue(s.contains("error: not a revision: -3"), s);
    }

    @Test
    void answersCommandsAndErrors() throws Exception {
        String s = interactive("get /registry/configmaps/ns0/cm-0\nget /registry/none\nat 5\nat 99999\nstats\nbogus\nquit\n");
        assertSays(s, "mod_revision: 203", "error: key not found: /registry/none", "viewing revision 5",
                "error: revision 99999 is past the end of the log (its last revision is " + index.revision() + ")",
                "error: unknown command 'bogus'");
        assertTrue(s.contains("waldoctor@5> "), "the prompt shows the viewed revision: " + s);
    }

    @Test
    void keyCompletionOnALargeSetOffersOnlyTheCommonPrefixOfEveryKey() throws Exception {
        java.nio.file.Path wal = java.nio.file.Files.createTempDirectory("completion").resolve("wal");
        try {
            // 600 events of pod-0 (more than the 500 candidates offered) and a few of pod-1: what is common to all is "pod-".
            dev.walkit.format.RecordEncoder enc = new dev.walkit.format.RecordEncoder();
            java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < 610; i++) {
                String key = "/registry/events/default/pod-" + (i < 600 ? "0." + (1000 + i) : "1." + i);
                log.write(enc.encode(dev.walkit.format.KeyValue.put(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), i + 1, i + 1, 1, new byte[] {1}, 0)));
            }
            java.nio.file.Files.write(wal, log.toByteArray());
            try (StoreHistory big = Pass.history(wal, null)) {
                ShellContext ctx = new ShellContext(big, false);
                String prefix = "/registry/events/default/";
                List<String> keys = TextKeys.keys(big, prefix);
                List<String> offered = Commands.completeKey(ctx, prefix);
                assertTrue(offered.size() > 500, "a set larger than the cap: " + offered.size() + " of " + keys.size());
                assertEquals(commonPrefix(keys), commonPrefix(offered), "what the line reader inserts is common to every key");
            }
        } finally {
            java.nio.file.Files.deleteIfExists(wal);
            java.nio.file.Files.deleteIfExists(wal.getParent());
        }
    }

    private static String commonPrefix(List<String> l) {
        String p = l.get(0);
        for (String s : l) {
            int i = 0;
            while (i < p.length() && i < s.length() && p.charAt(i) == s.charAt(i)) i++;
            p = p.substring(0, i);
        }
        return p;
    }

    @Test
    void aListingOnATerminalIsBoundedUnlessAsked() throws Exception {
        long all = TextKeys.liveCount(index, "/registry/", Long.MAX_VALUE);
        assertTrue(all > Shell.ROWS, "the fixture has more keys than a screenful: " + all);
        String s = interactive("range /registry/ --keys-only\nquit\n");
        assertEquals(Shell.ROWS, s.lines().filter(l -> l.replace("waldoctor> ", "").startsWith("/registry/")).count(), s);
        assertTrue(s.contains("… " + Shell.ROWS + " of " + String.format("%,d", all) + " keys shown (--limit N shows N, --limit 0 all)"), s);
        String every = interactive("range /registry/ --keys-only --limit 0\nquit\n");
        assertEquals(all, every.lines().filter(l -> l.replace("waldoctor> ", "").startsWith("/registry/")).count());
    }

    @Test
    void aLongHistoryOnATerminalShowsTheLatestEvents() throws Exception {
        // The key with the most events in the fixture.
        String key = TextKeys.keys(index, "").stream().max(java.util.Comparator.comparingInt(k -> TextKeys.events(index, k).size())).orElseThrow();
        int n = TextKeys.events(index, key).size();
        assertTrue(n > 3, key + " has " + n + " events");
        String s = interactive("history " + key + " --limit 3\nquit\n");
        assertTrue(s.contains("… " + (n - 3) + " earlier event(s) of " + n + " not shown (--limit N shows N, --limit 0 all)"), s);
        assertEquals(3, s.lines().filter(l -> l.replace("waldoctor> ", "").startsWith("rev ")).count(), s);
        long last = TextKeys.events(index, key).get(n - 1).modRevision();
        assertTrue(s.contains("rev " + last), "the latest is shown: " + s);
    }

    @Test
    void aLongDiffOnATerminalListsTheFirstChangesAndCountsThemAll() throws Exception {
        long top = index.revision();
        String all = interactive("diff 1 " + top + " --limit 0\nquit\n");
        long n = all.lines().filter(l -> l.replace("waldoctor> ", "").matches("(created|changed|deleted)  .*")).count();
        assertTrue(n > 3, "changes: " + n);
        String s = interactive("diff 1 " + top + " --limit 3\nquit\n");
        assertEquals(3, s.lines().filter(l -> l.replace("waldoctor> ", "").matches("(created|changed|deleted)  .*")).count(), s);
        assertTrue(s.contains("… 3 of " + n + " changes shown (--limit N shows N, --limit 0 all)"), s);
        String counts = all.lines().filter(l -> l.matches("\\d+ created, \\d+ changed, \\d+ deleted")).findFirst().orElseThrow();
        assertTrue(s.contains(counts), "the same counts either way: " + counts);
    }

    @Test
    void aLeaseWithManyKeysOnATerminalListsTheFirstAndCountsThemAll() throws Exception {
        java.nio.file.Path wal = java.nio.file.Files.createTempDirectory("lease").resolve("wal");
        dev.walkit.format.RecordEncoder enc = new dev.walkit.format.RecordEncoder();
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            log.write(enc.encode(dev.walkit.format.KeyValue.put(("/registry/leases/k-" + i).getBytes(StandardCharsets.UTF_8), i + 1, i + 1, 1, new byte[] {1}, 5)));
        }
        java.nio.file.Files.write(wal, log.toByteArray());
        try (StoreHistory x = Pass.history(wal, null)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (DumbTerminal t = new DumbTerminal("test", "dumb", new ByteArrayInputStream("lease 5 --limit 1\nlease 5 --limit 0\nquit\n".getBytes(StandardCharsets.UTF_8)),
                    out, StandardCharsets.UTF_8)) {
                Shell.interactive(new ShellContext(x, false), t, null);
            }
            String s = out.toString(StandardCharsets.UTF_8);
            assertTrue(s.contains("… 1 of 3 keys shown (--limit N shows N, --limit 0 all)"), s);
            assertTrue(s.contains("3 key(s)"), s);
        } finally {
            java.nio.file.Files.deleteIfExists(wal);
            java.nio.file.Files.deleteIfExists(wal.getParent());
        }
    }

    @Test
    void aRevisionPastTheEndAndANegativeLimitAreOneLineErrors() throws Exception {
        String s = interactive("get /registry/configmaps/ns0/cm-0 --rev 99999\nrange /registry/ --limit -1\nquit\n");
        assertSays(s, "error: revision 99999 is past the end of the log (its last revision is " + index.revision() + ")",
                "error: --limit takes a non-negative number, not '-1'");
        assertFalse(s.contains("mod_revision"), "no value shown for a revision past the end: " + s);
    }

    private static void assertSays(String output, String... parts) {
        for (String p : parts) assertTrue(output.contains(p), "no '" + p + "' in:\n" + output);
    }

    @Test
    void aMistypedCommandGetsTheNearestOne() throws Exception {
        String s = interactive("stat\nhistroy /x\nleaes\nbogus\nquit\n");
        assertSays(s, "error: unknown command 'stat': did you mean 'stats'? (try 'help')",
                "error: unknown command 'histroy': did you mean 'history'? (try 'help')",
                "error: unknown command 'leaes': did you mean 'leases'? (try 'help')",
                "error: unknown command 'bogus' (try 'help')");
    }

    @Test
    void historyKeepsItsColumnsAcrossRevisionWidths() throws Exception {
        // cm-0 changes at revisions of two and three digits in this log.
        StringWriter w = new StringWriter();
        Commands.execute(new ShellContext(index, false), List.of("history", "/registry/configmaps/ns0/cm-0"), new PrintWriter(w));
        List<String> lines = w.toString().lines().toList();
        List<Integer> opColumns = lines.stream().filter(l -> l.startsWith("rev ")).map(l -> Math.max(l.indexOf("PUT"), l.indexOf("DELETE"))).distinct().toList();
        assertEquals(1, opColumns.size(), w.toString());
        List<Integer> prevColumns = lines.stream().filter(l -> l.contains("prev_kv:")).map(l -> l.indexOf("prev_kv:")).distinct().toList();
        assertTrue(prevColumns.size() <= 2, w.toString()); // one for PUT (own line), one after DELETE
        assertTrue(lines.stream().filter(l -> l.startsWith(" ")).allMatch(l -> l.indexOf("prev_kv:") == opColumns.get(0) + 9), w.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("rev \\d{2} .*")) && lines.stream().anyMatch(l -> l.matches("rev \\d{3} .*")), w.toString());
    }

    @Test
    void endOfInputLeaves() throws Exception {
        String s = interactive("stats\n");
        assertTrue(s.contains("records 399, transactions 318, revisions 1..325"), s);
    }

    @Test
    void completesCommandsAndKeysOneSegmentAtATime() {
        ShellContext ctx = new ShellContext(index, false);
        assertEquals(List.of("/registry/configmaps/", "/registry/events/", "/registry/leases/"),
                Commands.completeKey(ctx, "/registry/").stream().filter(k -> !k.startsWith("/registry/p") && !k.startsWith("/registry/s")).toList());
        assertEquals(List.of("/registry/configmaps/"), Commands.completeKey(ctx, "/registry/co"));
        assertEquals(List.of("/registry/configmaps/ns0/", "/registry/configmaps/ns1/", "/registry/configmaps/ns2/"), Commands.completeKey(ctx, "/registry/configmaps/"));
        List<String> cm = Commands.completeKey(ctx, "/registry/configmaps/ns0/cm-1");
        assertTrue(cm.contains("/registry/configmaps/ns0/cm-10") && cm.stream().allMatch(k -> k.startsWith("/registry/configmaps/ns0/cm-1")), cm.toString());
        assertEquals(List.of("--keys-only", "--limit", "--print-value-only", "--rev"), Commands.table().get("range").complete(ctx, List.of("/a"), "--"));
    }

    @Test
    void tabCompletesThroughTheLineReader() throws Exception {
        // A Tab after a unique segment prefix completes it in the line buffer; the completed line then runs.
        String s = interactive("range /registry/co\t --keys-only --limit 1\nquit\n");
        assertTrue(s.contains("/registry/configmaps/ns0/cm-0"), s);
        long all = TextKeys.liveCount(index, "/registry/configmaps/", Long.MAX_VALUE);
        assertTrue(s.contains("… 1 of " + all + " keys shown (--limit N shows N, --limit 0 all)") && !s.contains("/registry/configmaps/ns0/cm-1"), s);
    }

    @Test
    void pipedFormPrintsOnlyAnswers() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int failed = Shell.piped(new ShellContext(index, false), new BufferedReader(new StringReader("leases\nlease 0000000000001b58\nlease 1\ndiff 100 200\ngte /x\n")),
                new PrintWriter(out), new PrintWriter(err));
        String s = out.toString();
        assertEquals(2, failed, s);
        assertTrue(s.startsWith("lease 0000000000001b58 (7000): "), "etcdctl's 16 hex digits first: " + s);
        assertTrue(s.contains("20 lease(s); next lease ID 0000000000001b6c (7020)"), s);
        assertTrue(s.matches("(?s).*\\d+ created, \\d+ changed, \\d+ deleted.*"), s);
        assertTrue(!s.contains("waldoctor>"), "no prompt when piped");
        assertFalse(s.contains("error"), "answers only on stdout: " + s);
        // Errors on stderr, each with the line of input it came from, as sqlite3 and psql report them.
        assertEquals("line 3: no live key is attached to lease 0000000000000001 (1)\nline 5: unknown command 'gte': did you mean 'get'? (try 'help')\n", err.toString());
    }
}
