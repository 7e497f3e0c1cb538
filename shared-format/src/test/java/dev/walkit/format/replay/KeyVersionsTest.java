package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Versions counted for a store that keeps none: from 1 at a create or after a delete, one more at each put. */
class KeyVersionsTest {
    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putsCountUpFromOneAndADeleteOrACreateStartsAgain() {
        KeyVersions v = new KeyVersions();
        assertEquals(1, v.put(k("/a"), false)); // first seen: 1 even without the create flag
        assertEquals(2, v.put(k("/a"), false));
        assertEquals(1, v.put(k("/b"), true));
        assertEquals(3, v.put(k("/a"), false));
        v.delete(k("/a"));
        assertEquals(1, v.put(k("/a"), false));
        assertEquals(1, v.put(k("/a"), true)); // a create of a live key: 1 (the replay then reports the create_revision)
        assertEquals(2, v.put(k("/b"), false));
        v.delete(k("/never-put"));
        assertEquals(1, v.put(k("/never-put"), false));
    }

    @Test
    void keysThatShareAPrefixOrAHashWordAreApart() {
        KeyVersions v = new KeyVersions();
        for (int i = 0; i < 5000; i++) v.put(k("/registry/pods/ns/p" + i), true);
        for (int i = 0; i < 5000; i += 7) assertEquals(2, v.put(k("/registry/pods/ns/p" + i), false));
        assertEquals(2, v.put(k("/registry/pods/ns/p1"), false));
        assertEquals(3, v.put(k("/registry/pods/ns/p0"), false));
    }
}
