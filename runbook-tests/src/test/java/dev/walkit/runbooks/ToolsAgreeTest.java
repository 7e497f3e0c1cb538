package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.walkit.format.LogBuilder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code walverify --level semantic}, {@code waldoctor diagnose} and {@code walrecover --dry-run} read a log
 * through one engine, so they must agree on it: the same damaged spans, the same findings, the same verdict
 * class (walverify's and diagnose's; walrecover's absolute policy accepts exactly the healthy logs) and the
 * same final state (revision, live keys). Over the committed corpus and generated damage and rule breaks.
 */
class ToolsAgreeTest {
    @TempDir
    Path dir;

    static Stream<Arguments> logs() throws IOException {
        return dev.walkit.testdata.Corpus.logs().stream().map(l -> Arguments.of(l.name(), l.bytes()));
    }

    /** The tools' documents, each validated against its schema ({@link OneAccountTest#json}). */
    private static OneAccountTest.Out json(String tool, String... args) throws IOException {
        return OneAccountTest.json(tool, args);
    }

    private static List<String> spans(JsonNode doc) {
        List<String> out = new ArrayList<>();
        doc.get("damage").forEach(d -> out.add(d.get("kind").asText() + "@" + d.get("offset").asLong() + "+" + d.get("length").asLong()));
        return out;
    }

    private static List<String> findings(JsonNode doc) {
        List<String> out = new ArrayList<>();
        doc.get("findings").forEach(f -> out.add(f.get("kind").asText() + "@" + f.get("offset").asLong()));
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("logs")
    void verifyDiagnoseAndDryRunAgree(String name, Supplier<byte[]> log) throws IOException {
        Path wal = LogBuilder.write(dir, "wal", log.get());
        String p = wal.toString();
        OneAccountTest.Out v = json("walverify", "--level", "semantic", "-w", "json", p);
        OneAccountTest.Out d = json("waldoctor", "diagnose", "-w", "json", p);
        OneAccountTest.Out r = json("walrecover", "--dry-run", "-w", "json", p);
        OneAccountTest.Out abs = json("walrecover", "--dry-run", "--policy", "absolute", "-w", "json", p);
        assertEquals(spans(v.json()), spans(d.json()), "spans: walverify vs diagnose");
        assertEquals(spans(v.json()), spans(r.json()), "spans: walverify vs walrecover");
        assertEquals(findings(v.json()), findings(d.json()), "findings: walverify vs diagnose");
        assertEquals(findings(v.json()), findings(r.json()), "findings: walverify vs walrecover");
        assertEquals(v.json().get("verdict").asText(), d.json().get("verdict").asText(), "verdict");
        assertEquals(v.exit(), d.exit(), "exit code");
        assertEquals(v.json().get("verdict").asText().equals("healthy"), abs.json().get("refused").isNull(),
                "walrecover --policy absolute accepts exactly what walverify calls healthy: " + abs.json().get("refused"));
        assertEquals(v.json().get("live_keys").asLong(), d.json().get("live_keys").asLong(), "live keys: walverify vs diagnose");
        if (r.json().get("refused").isNull()) {
            assertEquals(v.json().get("live_keys").asLong(), r.json().get("live_keys").asLong(), "live keys: walverify vs walrecover");
        }
        // One account of the revisions (docs/format.md, "Counting revisions"), adding up, in diagnose and walrecover alike.
        JsonNode dr = d.json().get("revisions");
        assertEquals(dr, r.json().get("revisions"), "revisions: diagnose vs walrecover");
        long span = dr.get("last").asLong() - dr.get("first").asLong() + 1;
        if (span > 0) {
            assertEquals(span, dr.get("applied").asLong() + dr.get("dropped").asLong() + dr.get("damaged_up_to").asLong() + dr.get("skipped").asLong(),
                    "the account adds up: " + dr);
        }
    }
}
