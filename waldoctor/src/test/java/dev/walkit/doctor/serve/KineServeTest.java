package dev.walkit.doctor.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.walkit.testdata.Etcdctl;
import dev.walkit.testdata.KineServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A kine state.db served: the real kine (../shared/tools/kine) takes the API server's transactions, is killed -9,
 * and {@code serve} over its db answers etcdctl as kine answered before it died, every revision; kine sets no
 * version, so that field aside (serve counts versions, as etcd does).
 */
class KineServeTest {
    @TempDir
    Path dir;

    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * etcdctl -w json's keys, without the version (kine sets none), in key order: kine answers in row order and
     * counts otherwise than etcd under a limit, where serve answers as etcd does (ServeTest holds that).
     */
    static String kvs(String json) throws Exception {
        JsonNode j = JSON.readTree(json);
        List<String> out = new ArrayList<>();
        for (JsonNode kv : j.path("kvs")) {
            ((ObjectNode) kv).remove("version");
            out.add(kv.toString());
        }
        return out.stream().sorted().toList().toString();
    }

    @Test
    void aKineDbServedAnswersAsKineDid() throws Exception {
        assumeTrue(KineServer.available(), "the real kine is not at " + KineServer.binary());
        Path data = Files.createDirectories(dir.resolve("db"));
        KineServer k = KineServer.start(data.resolve("state.db"), dir.resolve("kine.log"));
        String ep = k.endpoint();
        Map<String, String> kine = new TreeMap<>();
        long last;
        try {
            for (int i = 0; i < 6; i++) assertTrue(Etcdctl.create(ep, "/registry/configmaps/ns0/cm-" + i, "v0-" + i, 0));
            for (int i = 0; i < 3; i++) {
                String key = "/registry/configmaps/ns0/cm-" + i;
                assertTrue(Etcdctl.change(ep, key, "put " + key + " v1-" + i));
            }
            assertTrue(Etcdctl.change(ep, "/registry/configmaps/ns0/cm-4", "del /registry/configmaps/ns0/cm-4"));
            Etcdctl.grant(ep, 600);
            assertTrue(Etcdctl.create(ep, "/registry/events/default/e-0", "ev-0", 600));
            last = Etcdctl.modRevision(ep, "/registry/events/default/e-0");
            for (long r = 2; r <= last; r++) {
                kine.put(r + " all", kvs(Etcdctl.run(ep, null, "get", "/registry/", "--prefix", "--rev", String.valueOf(r), "-w", "json")));
            }
        } finally {
            k.kill(); // kill -9: the latest rows only in state.db-wal
        }
        try (EtcdEndpoint e = ServeTest.serve(data.resolve("state.db"), 0)) {
            String at = ServeTest.at(e);
            Map<String, String> served = new TreeMap<>();
            for (long r = 2; r <= last; r++) {
                served.put(r + " all", kvs(Etcdctl.run(at, null, "get", "/registry/", "--prefix", "--rev", String.valueOf(r), "-w", "json")));
            }
            assertEquals(kine.toString().length(), served.toString().length(), "the same answers");
            assertTrue(kine.equals(served), "every revision answered as kine did");
            // kine's lease is its TTL: lease 600, with the key on it.
            String ttl = Etcdctl.run(at, null, "lease", "timetolive", Long.toHexString(600), "--keys");
            assertTrue(ttl.contains("granted with TTL(600s)") && ttl.contains("/registry/events/default/e-0"), ttl);
            // The history as a watch from revision 2: every create, update and delete, in order.
            String watch = ServeTest.watch(at, List.of("--rev", "2", "--prefix", "/registry/configmaps/"), null);
            assertEquals(6 + 3 + 1, watch.lines().filter(l -> l.equals("PUT") || l.equals("DELETE")).count(), watch);
            assertTrue(watch.contains("DELETE\n/registry/configmaps/ns0/cm-4\n"), watch);
        }
    }
}
