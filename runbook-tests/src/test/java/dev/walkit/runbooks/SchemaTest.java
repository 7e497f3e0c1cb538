package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.Fixtures;
import dev.walkit.migrate.WalMigrate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Every JSON document the tools print has its schema in docs/schema/ and conforms to it: walverify's, diagnose's and
 * walrecover's are validated on the whole corpus by {@link OneAccountTest}; here waldoctor's key documents and
 * walmigrate's offline outputs and dry run. A document that lacks a field its schema requires does not pass.
 */
class SchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static JsonNode doctor(String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
        assertEquals(0, exit, String.join(" ", args) + ": " + err);
        return JSON.readTree(out.toString());
    }

    static JsonNode migrate(String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = WalMigrate.commandLine(new PrintWriter(out), new PrintWriter(err)).execute(args);
        assertEquals(0, exit, String.join(" ", args) + ": " + err);
        return JSON.readTree(out.toString());
    }

    @Test
    void everyDocumentConformsToItsSchema() throws Exception {
        String wal = Fixtures.path("vectors/small/wal").toString();
        List<JsonNode> docs = new ArrayList<>();
        docs.add(doctor("get", "-w", "json", wal, "/registry/configmaps/ns0/cm-0"));
        docs.add(doctor("range", "-w", "json", wal, "/registry/secrets/", "--limit", "3"));
        docs.add(doctor("range", "-w", "json", wal, "/registry/", "--keys-only"));
        docs.add(doctor("history", "-w", "json", wal, "/registry/configmaps/ns0/cm-0"));
        docs.add(migrate("wal", "--wal", wal, "--out-wal", dir.resolve("w").toString(), "-w", "json"));
        docs.add(migrate("wal", "--wal", wal, "--out-kine", dir.resolve("k").toString(), "-w", "json"));
        docs.add(migrate("wal", "--wal", wal, "--dry-run", "-w", "json"));
        docs.add(migrate("wal", "--wal", wal, "--out-wal", dir.resolve("f").toString(), "--follow", "--until-revision", "1", "-w", "json"));
        for (JsonNode d : docs) Schemas.valid(d);
    }

    @Test
    void aDocumentWithoutARequiredFieldOrWithAFieldOfAnotherTypeDoesNotConform() throws Exception {
        String wal = Fixtures.path("vectors/small/wal").toString();
        ObjectNode get = (ObjectNode) doctor("get", "-w", "json", wal, "/registry/configmaps/ns0/cm-0");
        ((ObjectNode) get.get("kvs").get(0)).remove("key_base64");
        assertFalse(Schemas.errors(get).isEmpty(), "a key without its base64 twin");
        ObjectNode verify = (ObjectNode) OneAccountTest.json("walverify", "-w", "json", wal).json();
        verify.put("records", "399");
        assertFalse(Schemas.errors(verify).isEmpty(), "records as a string");
    }
}
