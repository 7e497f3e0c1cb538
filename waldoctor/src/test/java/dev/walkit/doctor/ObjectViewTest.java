package dev.walkit.doctor;

import dev.walkit.format.Fixtures;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects decoded whole (get -o json|yaml), on real values as the apiserver stores them (testdata/fixtures/k8s-values,
 * auger's test data): the Pod and the Job in protobuf decode to the same fields as their JSON forms; a Secret's data
 * is redacted unless --show-secrets.
 */
class ObjectViewTest {
    @TempDir
    Path dir;

    static byte[] fixture(String name) throws Exception {
        return Files.readAllBytes(Fixtures.path("k8s-values/" + name));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aStoredPodDecodesToWhatItsJsonSays() throws Exception {
        Map<String, Object> pod = map(ObjectView.tree(fixture("storage-pod.bin"), new String[1]));
        Map<String, Object> json = map(new Yaml().load(new String(fixture("json-pod.json"), StandardCharsets.UTF_8)));
        assertEquals("v1", pod.get("apiVersion"));
        assertEquals("Pod", pod.get("kind"));
        assertEquals(map(json.get("metadata")).get("name"), map(pod.get("metadata")).get("name"));
        assertEquals(map(json.get("metadata")).get("namespace"), map(pod.get("metadata")).get("namespace"));
        // The spec, whole: the containers' names, images and commands.
        List<Map<String, Object>> want = (List<Map<String, Object>>) map(json.get("spec")).get("containers");
        List<Map<String, Object>> got = (List<Map<String, Object>>) map(pod.get("spec")).get("containers");
        assertEquals(want.size(), got.size());
        assertEquals(want.get(0).get("name"), got.get(0).get("name"));
        assertEquals(want.get(0).get("image"), got.get(0).get("image"));
        assertEquals(want.get(0).get("command"), got.get(0).get("command"));
        assertEquals(map(json.get("spec")).get("restartPolicy"), map(pod.get("spec")).get("restartPolicy"));
        // Times as Kubernetes' JSON writes them (RFC 3339), not protobuf's {seconds, nanos}.
        assertTrue(String.valueOf(map(pod.get("metadata")).get("creationTimestamp")).startsWith(
                String.valueOf(map(json.get("metadata")).get("creationTimestamp")).replace("Z", "")), pod.get("metadata").toString());
        Map<String, Object> job = map(ObjectView.tree(fixture("storage-job.bin"), new String[1]));
        assertEquals("batch/v1", job.get("apiVersion"));
        assertEquals("pi", map(job.get("metadata")).get("name"));
        assertTrue(map(job.get("spec")).containsKey("template"), job.toString());
    }

    @Test
    void getDecodesTheObjectInTheShellAndOneShot() throws Exception {
        LogBuilder b = new LogBuilder();
        b.add(KeyValue.put("/registry/pods/default/pi-dqtsw".getBytes(StandardCharsets.UTF_8), 1, 1, 1, fixture("storage-pod.bin"), 0));
        b.add(KeyValue.put("/registry/secrets/default/s1".getBytes(StandardCharsets.UTF_8), 2, 2, 1,
                "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s1\"},\"data\":{\"password\":\"aHVudGVyMg==\"}}".getBytes(StandardCharsets.UTF_8), 0));
        b.add(KeyValue.put("/registry/other/x".getBytes(StandardCharsets.UTF_8), 3, 3, 1, new byte[] {1, 2, 3}, 0));
        Path wal = LogBuilder.write(dir, "wal", b.bytes());
        WalDoctorTest.Run yaml = WalDoctorTest.run("get", wal.toString(), "/registry/pods/default/pi-dqtsw", "-o", "yaml");
        assertEquals(0, yaml.exit(), yaml.err());
        Map<String, Object> y = map(new Yaml().load(yaml.out()));
        assertEquals("pi-dqtsw", map(y.get("metadata")).get("name"));
        assertTrue(yaml.out().contains("containers:"), yaml.out());
        WalDoctorTest.Run json = WalDoctorTest.run("get", wal.toString(), "/registry/pods/default/pi-dqtsw", "--output", "json");
        assertEquals(0, json.exit(), json.err());
        assertEquals(y, map(new Yaml().load(json.out())), "the same object either way");
        // A Secret's data is redacted unless asked for.
        WalDoctorTest.Run secret = WalDoctorTest.run("get", wal.toString(), "/registry/secrets/default/s1", "-o", "yaml");
        assertFalse(secret.out().contains("aHVudGVyMg=="), secret.out());
        assertTrue(secret.out().contains("password: <redacted; --show-secrets to show>"), secret.out());
        WalDoctorTest.Run shown = WalDoctorTest.run("get", "--show-secrets", wal.toString(), "/registry/secrets/default/s1", "-o", "yaml");
        assertTrue(shown.out().contains("aHVudGVyMg=="), shown.out());
        // Bytes that are no object: one line on stderr.
        WalDoctorTest.Run bytes = WalDoctorTest.run("get", wal.toString(), "/registry/other/x", "-o", "json");
        assertEquals(1, bytes.exit());
        assertEquals("waldoctor get: /registry/other/x at revision 3 is neither a Kubernetes protobuf object (k8s\\0) nor JSON", bytes.err().strip());
        assertEquals(2, WalDoctorTest.run("get", wal.toString(), "/registry/other/x", "-o", "toml").exit());
        // history -o: each version's object, headed by its revision.
        WalDoctorTest.Run h = WalDoctorTest.run("history", wal.toString(), "/registry/pods/default/pi-dqtsw", "-o", "yaml");
        assertEquals(0, h.exit(), h.err());
        assertTrue(h.out().startsWith("# rev 1 PUT version 1\napiVersion: v1\nkind: Pod\n"), h.out());
    }

    /** diff R1 R2 KEY: the object's fields that changed, path by path (JSON values here: a ConfigMap updated). */
    @Test
    void diffOfAKeyNamesTheFieldsThatChanged() throws Exception {
        byte[] k = "/registry/configmaps/default/c".getBytes(StandardCharsets.UTF_8);
        LogBuilder b = new LogBuilder();
        b.add(KeyValue.put(k, 1, 1, 1, "{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\",\"b\":\"2\"}}".getBytes(StandardCharsets.UTF_8), 0));
        b.add(KeyValue.put(k, 1, 2, 2, "{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\",\"b\":\"3\",\"c\":\"4\"}}".getBytes(StandardCharsets.UTF_8), 0));
        Path wal = LogBuilder.write(dir, "wal", b.bytes());
        WalDoctorTest.Run d = WalDoctorTest.run("diff", wal.toString(), "1", "2", "/registry/configmaps/default/c");
        assertEquals(0, d.exit(), d.err());
        assertEquals(List.of("~ data.b: 2 -> 3", "+ data.c: 4", "2 field(s) differ between revisions 1 and 2"), d.out().lines().toList());
        WalDoctorTest.Run none = WalDoctorTest.run("diff", wal.toString(), "1", "2", "/registry/nope");
        assertEquals(1, none.exit());
        // Without KEY: the keys that changed, as before.
        assertTrue(WalDoctorTest.run("diff", wal.toString(), "1", "2").out().contains("changed  /registry/configmaps/default/c"));
    }
}
