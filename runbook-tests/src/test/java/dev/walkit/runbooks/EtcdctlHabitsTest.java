package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.Fixtures;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * waldoctor's one-shot commands take etcdctl's habits: {@code get KEY --prefix} and {@code --from-key} (the range),
 * {@code --print-value-only}, {@code -w} before the command, {@code leases -w json} (a document of its own schema).
 */
class EtcdctlHabitsTest {
    static final String S = Fixtures.path("vectors/small/wal").toString();
    static final String DB = Fixtures.path("etcd/snapshot.db").toString();

    record Ran(int exit, String out, String err) {
    }

    static Ran run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Ran(exit, out.toString(), err.toString());
    }

    @Test
    void getWithPrefixOrFromKeyIsTheRange() {
        Ran range = run("range", S, "/registry/configmaps/", "--keys-only", "--limit", "0");
        Ran prefix = run("get", S, "/registry/configmaps/", "--prefix", "--keys-only", "--limit", "0");
        assertEquals(0, prefix.exit(), prefix.err());
        assertEquals(range.out(), prefix.out());
        Ran from = run("get", S, "/registry/pods/", "--from-key", "--keys-only", "--limit", "0");
        assertEquals(0, from.exit(), from.err());
        List<String> keys = from.out().lines().filter(l -> l.startsWith("/")).toList();
        assertTrue(!keys.isEmpty() && keys.stream().allMatch(k -> k.compareTo("/registry/pods/") >= 0), from.out());
        assertTrue(keys.stream().anyMatch(k -> !k.startsWith("/registry/pods/")), "from the key on, not under it: " + from.out());
        Ran both = run("get", S, "/registry/", "--prefix", "--from-key");
        assertTrue(both.exit() == 2 || both.exit() == 1, both.exit() + ": " + both.err());
        assertTrue(both.err().contains("exclude each other"), both.err());
    }

    @Test
    void printValueOnlyPrintsTheValuesAlone() {
        Ran full = run("get", S, "/registry/configmaps/ns0/cm-0");
        Ran value = run("get", S, "/registry/configmaps/ns0/cm-0", "--print-value-only");
        assertEquals(0, value.exit(), value.err());
        assertTrue(!value.out().contains("mod_revision") && full.out().contains(value.out().strip()), value.out());
        Ran values = run("get", S, "/registry/configmaps/ns0/", "--prefix", "--print-value-only", "--limit", "0");
        assertEquals(0, values.exit(), values.err());
        assertTrue(!values.out().contains("/registry/") && !values.out().contains("key(s)"), values.out());
    }

    @Test
    void theOutputOptionBeforeTheCommandIsTheCommands() throws Exception {
        Ran before = run("-w", "json", "get", S, "/registry/configmaps/ns0/cm-0");
        Ran after = run("get", S, "/registry/configmaps/ns0/cm-0", "-w", "json");
        assertEquals(0, before.exit(), before.err());
        assertEquals(after.out(), before.out());
        assertEquals(after.out(), run("--json", "get", S, "/registry/configmaps/ns0/cm-0").out());
        Schemas.valid(new ObjectMapper().readTree(before.out()));
    }

    @Test
    void leasesAsJsonAndTable() throws Exception {
        Ran j = run("leases", DB, "-w", "json");
        assertEquals(0, j.exit(), j.err());
        JsonNode d = Schemas.valid(new ObjectMapper().readTree(j.out()));
        assertEquals(2, d.get("count").asInt(), j.out());
        JsonNode first = d.get("leases").get(0);
        assertEquals("07c1a23cf75b1f08", first.get("id_hex").asText());
        assertEquals(600, first.get("ttl_seconds").asLong());
        assertEquals(0, first.get("live_keys").asLong());
        JsonNode wal = Schemas.valid(new ObjectMapper().readTree(run("--json", "leases", S).out()));
        assertTrue(wal.get("leases").get(0).get("ttl_seconds").isNull(), "a WAL keeps no TTL: " + wal);
        Ran t = run("leases", DB, "-w", "table");
        assertEquals(0, t.exit(), t.err());
        assertTrue(t.out().contains("07c1a23cf75b1f08") && t.out().contains("600s"), t.out());
    }
}
