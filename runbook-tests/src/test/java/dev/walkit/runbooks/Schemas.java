package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.walkit.format.Fixtures;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The JSON documents' schemas (docs/schema/*.schema.json, draft 2020-12), each document validated against its own. */
final class Schemas {
    /** The schemas, read from docs/schema: each $ref names a file beside its own. */
    private static final String BASE = Fixtures.root().resolve("docs/schema").toUri().toString();
    /** Loading from file: URIs is "remote" to the validator; nothing here names a network location. */
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaLoader(l -> l.fetchRemoteResources()));
    private static final Map<String, Schema> LOADED = new ConcurrentHashMap<>();

    private Schemas() {
    }

    /** The schema a document names in its {@code schema} field. */
    static String fileOf(JsonNode doc) {
        return switch (doc.get("schema").asText()) {
            case "walkit.walverify/v1" -> "walverify.schema.json";
            case "walkit.waldoctor.diagnose/v1" -> "waldoctor.diagnose.schema.json";
            case "walkit.walrecover/v1" -> "walrecover.schema.json";
            case "walkit.waldoctor.kv/v1" -> "waldoctor.kv.schema.json";
            case "walkit.waldoctor.leases/v1" -> "waldoctor.leases.schema.json";
            case "walkit.walmigrate/v1" -> "walmigrate.schema.json";
            default -> throw new AssertionError("no schema file for " + doc.get("schema"));
        };
    }

    /** What is wrong with {@code doc} by its schema; empty when it conforms. */
    static List<Error> errors(JsonNode doc) {
        Schema s = LOADED.computeIfAbsent(fileOf(doc), f -> REGISTRY.getSchema(SchemaLocation.of(BASE + f)));
        return s.validate(doc);
    }

    /** Fails, naming every error, unless {@code doc} conforms to its schema. */
    static JsonNode valid(JsonNode doc) {
        List<Error> e = errors(doc);
        if (!e.isEmpty()) throw new AssertionError(doc.get("schema").asText() + " does not conform to docs/schema/" + fileOf(doc) + ": " + e + "\n" + doc);
        return doc;
    }
}
