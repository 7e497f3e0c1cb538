package dev.walkit.format;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real Kubernetes values as the apiserver stores them (../shared/k8s-values) pass; each damaged at a named byte does not. */
class ValueCheckTest {
    static final byte[] POD_KEY = "/registry/pods/default/pi-dqtsw".getBytes(StandardCharsets.US_ASCII);

    static byte[] value(String name) throws Exception {
        return Files.readAllBytes(Fixtures.path("k8s-values/" + name));
    }

    @Test
    void realValuesPass() throws Exception {
        for (String v : new String[] {"storage-pod.bin", "storage-job.bin", "json-pod.json", "json-job.json"}) {
            assertNull(ValueCheck.check(POD_KEY, value(v)), v);
        }
        assertNull(ValueCheck.check("/registry/leases/x".getBytes(StandardCharsets.US_ASCII), "not an object".getBytes(StandardCharsets.US_ASCII)));
        assertNull(ValueCheck.check("other/key".getBytes(StandardCharsets.US_ASCII), new byte[1024]), "keys outside /registry/ are not judged");
    }

    @Test
    void aDamagedEnvelopeObjectOrMetadataIsNamed() throws Exception {
        byte[] pod = value("storage-pod.bin");
        byte[] a = pod.clone();
        a[4] = 0x08; // the envelope's first tag: field 1 as a varint, not typeMeta's bytes
        assertTrue(ValueCheck.check(POD_KEY, a).startsWith("the k8s envelope holds field 1 (wire type 0)"), ValueCheck.check(POD_KEY, a));
        byte[] b = pod.clone();
        int raw = indexOfRaw(pod);
        b[raw] = 0; // the object's first tag zeroed
        assertEquals("its object: field number 0 at byte " + raw + " (a tag protobuf never writes)", ValueCheck.check(POD_KEY, b));
        byte[] c = pod.clone();
        c[raw + 3] = 0x07; // ObjectMeta's first tag (after the object's field-1 tag and 2-byte length): wire type 7
        assertTrue(ValueCheck.check(POD_KEY, c).startsWith("its "), ValueCheck.check(POD_KEY, c));
    }

    /** Where the envelope's raw (field 2) starts: after typeMeta. */
    static int indexOfRaw(byte[] pod) {
        int typeMetaLength = pod[5];
        int rawTag = 4 + 2 + typeMetaLength;
        assertEquals(0x12, pod[rawTag]);
        int i = rawTag + 1;
        while ((pod[i] & 0x80) != 0) i++;
        return i + 1;
    }

    @Test
    void jsonThatDoesNotParseAndALostBlockAreNamed() throws Exception {
        byte[] json = value("json-pod.json");
        byte[] d = json.clone();
        d[json.length / 2] = 0;
        assertTrue(ValueCheck.check(POD_KEY, d).startsWith("JSON that does not parse ("), ValueCheck.check(POD_KEY, d));
        byte[] big = new byte[4096];
        java.util.Arrays.fill(big, (byte) 'x');
        big[0] = '"';
        big[4095] = '"';
        java.util.Arrays.fill(big, 1000, 1000 + 600, (byte) 0);
        assertEquals("a run of 512+ zero bytes at byte 1000 of the value (a lost block)", ValueCheck.check(POD_KEY, big));
    }
}
