package dev.walkit.doctor;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class ResourceTableTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aKeysResourceIsItsFirstSegmentOrAGroupAndItsKind() {
        assertEquals("pods", ResourceTable.resourceOf(b("/registry/pods/default/web-0")));
        assertEquals("example.com/widgets", ResourceTable.resourceOf(b("/registry/example.com/widgets/default/w-0")));
        assertEquals("example.com", ResourceTable.resourceOf(b("/registry/example.com")));
        assertEquals("example.com/", ResourceTable.resourceOf(b("/registry/example.com/")));
        assertEquals("ranges", ResourceTable.resourceOf(b("/registry/ranges")));
        assertEquals("(other)", ResourceTable.resourceOf(b("/registry/")));
        assertEquals("(other)", ResourceTable.resourceOf(b("/registry//x")));
        assertEquals("(other)", ResourceTable.resourceOf(b("/registr")));
        assertEquals("(other)", ResourceTable.resourceOf(b("compact_rev_key")));
    }

    @Test
    void keysOfOneResourceShareOneCountAndTheTableGrows() {
        ResourceTable t = new ResourceTable();
        long[] pods = t.counts(b("/registry/pods/a"));
        pods[0]++;
        assertSame(pods, t.counts(b("/registry/pods/b/c")), "same resource, same counts");
        for (int i = 0; i < 200; i++) t.counts(b("/registry/r" + i + "/x"))[2] += i;
        t.counts(b("/other"))[1] = 5;
        assertSame(pods, t.counts(b("/registry/pods/z")), "found again after the table grew");
        var all = t.sorted();
        assertEquals(202, all.size());
        assertEquals(List.of("(other)", "pods", "r0", "r1", "r10"), all.keySet().stream().limit(5).toList());
        assertEquals(5, all.get("(other)")[1]);
        assertEquals(199, all.get("r199")[2]);
        assertEquals(1, all.get("pods")[0]);
    }
}
