package dev.walkit.doctor;

import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.StoreHistory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.KeyText;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys that are not UTF-8 (the bytes 00 01 ff, a Latin-1 é) and one with a backslash, in every shell command that
 * names keys: printed quoted one way ({@code \xNN}, a backslash doubled), taken back in that form, and in JSON with
 * their bytes as base64. ({@code range} once failed on them with a NullPointerException.)
 */
class BinaryKeysTest {
    @TempDir
    Path dir;

    static final byte[] BINARY = {'/', 'r', 'e', 'g', 'i', 's', 't', 'r', 'y', '/', 'k', 'e', 'y', '/', 0, 1, (byte) 0xff};
    static final byte[] LATIN1 = {'/', 'r', 'e', 'g', 'i', 's', 't', 'r', 'y', '/', 'c', 'a', 'f', (byte) 0xe9};
    static final byte[] BACKSLASH = "/registry/a\\b".getBytes(StandardCharsets.UTF_8);

    Path log() throws Exception {
        LogBuilder b = new LogBuilder();
        b.add(KeyValue.put(BINARY, 1, 1, 1, "one".getBytes(StandardCharsets.UTF_8), 0));
        b.add(KeyValue.put(LATIN1, 2, 2, 1, "two".getBytes(StandardCharsets.UTF_8), 0));
        b.add(KeyValue.put(BACKSLASH, 3, 3, 1, "three".getBytes(StandardCharsets.UTF_8), 0));
        b.add(KeyValue.put(BINARY, 1, 4, 2, "one again".getBytes(StandardCharsets.UTF_8), 0));
        return LogBuilder.write(dir, "wal", b.bytes());
    }

    @Test
    void everyCommandTakesBackTheKeysItPrints() throws Exception {
        Path wal = log();
        WalDoctorTest.Run range = WalDoctorTest.run("range", wal.toString(), "/registry/", "--keys-only");
        assertEquals(0, range.exit(), range.out() + range.err());
        List<String> printed = range.out().lines().filter(l -> l.startsWith("/registry/")).toList();
        assertEquals(List.of("/registry/a\\\\b", "/registry/caf\\xe9", "/registry/key/\\x00\\x01\\xff"), printed);
        for (String k : printed) {
            WalDoctorTest.Run get = WalDoctorTest.run("get", wal.toString(), k);
            assertEquals(0, get.exit(), k + ": " + get.out() + get.err());
            assertTrue(get.out().contains("key: " + k), get.out());
            WalDoctorTest.Run history = WalDoctorTest.run("history", wal.toString(), k);
            assertEquals(0, history.exit(), k + ": " + history.err());
        }
        WalDoctorTest.Run history = WalDoctorTest.run("history", wal.toString(), "/registry/key/\\x00\\x01\\xff");
        assertTrue(history.out().contains("rev 4  PUT      version 2, create 1"), history.out());
        // JSON: the key quoted as in text, and its bytes.
        WalDoctorTest.Run json = WalDoctorTest.run("range", wal.toString(), "/registry/", "-w", "json");
        assertEquals(0, json.exit(), json.err());
        List<byte[]> keys = new ArrayList<>();
        for (JsonNode kv : new ObjectMapper().readTree(json.out()).get("kvs")) {
            byte[] k = Base64.getDecoder().decode(kv.get("key_base64").asText());
            assertArrayEquals(k, KeyText.unquote(kv.get("key").asText()));
            keys.add(k);
        }
        assertArrayEquals(BACKSLASH, keys.get(0));
        assertArrayEquals(LATIN1, keys.get(1));
        assertArrayEquals(BINARY, keys.get(2));
    }

    @Test
    void theShellScriptsAsAShellDoes() throws Exception {
        try (StoreHistory x = Pass.history(log(), null)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            String script = "# a comment line\n"
                    + "get '/registry/key/\\x00\\x01\\xff'   # the binary key, single-quoted\n"
                    + "get \"/registry/caf\\xe9\"\n"
                    + "range /registry/ --keys-only\n"
                    + "\\q\n"
                    + "get /never/run\n";
            int failed = Shell.piped(new ShellContext(x, false), new BufferedReader(new StringReader(script)), new PrintWriter(out, true),
                    new PrintWriter(err, true));
            assertEquals(0, failed, err.toString());
            assertTrue(out.toString().contains("one again") && out.toString().contains("two"), out.toString());
            assertFalse(err.toString().contains("/never/run") || out.toString().contains("/never/run"), "\\q quits");
        }
    }

    @Test
    void wordsAreSplitAsAShellSplitsThem() {
        assertEquals(List.of("get", "a b", "c d", "e f", "\\x00"), Args.words("get 'a b' \"c d\" e\\ f \\x00"));
        assertEquals(List.of("get", "k"), Args.words("get k # the rest is a comment"));
        assertEquals(List.of(), Args.words("# only a comment"));
        assertEquals(List.of("get", "it's"), Args.words("get it\\'s"));
        assertEquals(List.of("get", "a#b"), Args.words("get a#b"));
    }

    @Test
    void quoteAndUnquoteAreInverse() {
        for (byte[] k : List.of(BINARY, LATIN1, BACKSLASH, "café".getBytes(StandardCharsets.UTF_8), new byte[0])) {
            assertArrayEquals(k, KeyText.unquote(KeyText.quote(k)));
        }
        assertArrayEquals("café".getBytes(StandardCharsets.UTF_8), KeyText.unquote("café"), "typed as UTF-8 text");
        assertArrayEquals("café".getBytes(StandardCharsets.UTF_8), KeyText.unquote("caf\\xc3\\xa9"));
    }

    /** Keys of random bytes (every byte value, empty segments, backslashes): each printed key, pasted back, finds its key. */
    @Test
    void randomByteKeysRoundTripThroughEveryCommand() throws Exception {
        java.util.Random rnd = new java.util.Random(31);
        LogBuilder b = new LogBuilder();
        java.util.TreeMap<String, byte[]> keys = new java.util.TreeMap<>();
        for (int i = 1; i <= 60; i++) {
            byte[] k = new byte[3 + rnd.nextInt(12)];
            rnd.nextBytes(k);
            k[0] = '/';
            keys.put(KeyText.quote(k), k);
            b.add(KeyValue.put(k, i, i, 1, ("v" + i).getBytes(StandardCharsets.UTF_8), 0));
        }
        Path wal = LogBuilder.write(dir, "random", b.bytes());
        WalDoctorTest.Run range = WalDoctorTest.run("range", wal.toString(), "/", "--keys-only", "--limit", "0");
        assertEquals(0, range.exit(), range.err());
        List<String> printed = range.out().lines().filter(l -> l.startsWith("/")).toList();
        assertEquals(new ArrayList<>(keys.keySet()).size(), printed.size(), range.out());
        try (StoreHistory x = Pass.history(wal, null)) {
            StringBuilder script = new StringBuilder();
            for (String k : printed) {
                assertArrayEquals(keys.get(k), KeyText.unquote(k), k);
                // Pasted back as printed, bare and single-quoted: the key (its quotes, spaces and # are \xNN).
                script.append("get ").append(k).append("\nhistory '").append(k).append("'\n");
            }
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int failed = Shell.piped(new ShellContext(x, false), new BufferedReader(new StringReader(script.toString())), new PrintWriter(out, true),
                    new PrintWriter(err, true));
            assertEquals(0, failed, err.toString());
            for (String k : printed) assertTrue(out.toString().contains("key: " + k), k);
        }
    }
}
