package dev.walkit.format;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The JSON check agrees with jackson's parser (one root value, its defaults) on real values and on 40,000 mutations of them. */
class JsonSyntaxTest {
    static final JsonFactory JACKSON = JsonFactory.builder().build();

    /** Whether jackson reads {@code b} as exactly one JSON value. */
    static boolean jackson(byte[] b) {
        try (JsonParser p = JACKSON.createParser(b)) {
            int depth = 0;
            int roots = 0;
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (depth == 0) roots++;
                if (t.isStructStart()) depth++;
                else if (t.isStructEnd()) depth--;
            }
            return roots == 1;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static boolean ours(byte[] b) {
        return JsonSyntax.check(b, 0, b.length) == null;
    }

    @Test
    void realValuesAndNamedBreaks() throws Exception {
        for (String f : List.of("json-pod.json", "json-job.json")) assertNull(JsonSyntax.check(Files.readAllBytes(Fixtures.path("k8s-values/" + f)), 0,
                (int) Files.size(Fixtures.path("k8s-values/" + f))), f);
        for (String ok : List.of("{}", "[]", "0", "-1.5e+3", "\"\\u00e9\\n\"", " {\"a\":[1,true,null,{\"b\":\"é\"}]} ", "[[[[[]]]]]")) {
            assertNull(JsonSyntax.check(ok.getBytes(StandardCharsets.UTF_8), 0, ok.getBytes(StandardCharsets.UTF_8).length), ok);
        }
        for (String bad : List.of("", "{", "{\"a\"}", "{\"a\":1,}", "[1,]", "01", "1.", "-", "\"\u0001\"", "\"\\x\"", "{} {}", "nul", "{'a':1}", "[1 2]")) {
            assertNotNull(JsonSyntax.check(bad.getBytes(StandardCharsets.UTF_8), 0, bad.getBytes(StandardCharsets.UTF_8).length), bad);
        }
        assertNotNull(JsonSyntax.check(new byte[] {'"', (byte) 0xc3, '"'}, 0, 3), "UTF-8 cut short");
    }

    @Test
    void agreesWithJacksonOnMutations() throws Exception {
        byte[] pod = Files.readAllBytes(Fixtures.path("k8s-values/json-pod.json"));
        Random r = new Random(7);
        int valid = 0;
        for (int t = 0; t < 40_000; t++) {
            byte[] b = pod.clone();
            int edits = 1 + r.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = r.nextInt(b.length);
                b[at] = switch (r.nextInt(4)) {
                    case 0 -> (byte) r.nextInt(256);
                    case 1 -> (byte) "{}[]:,\"\\0123456789.-+eEtfn ".charAt(r.nextInt(27));
                    case 2 -> 0;
                    default -> (byte) (b[at] ^ (1 << r.nextInt(8)));
                };
            }
            boolean j = jackson(b);
            if (j) valid++;
            assertEquals(j, ours(b), () -> "mutation " + new String(b, StandardCharsets.UTF_8));
        }
        assertNotNull(valid > 0 ? "" : null, "some mutations stay valid JSON");
    }
}
