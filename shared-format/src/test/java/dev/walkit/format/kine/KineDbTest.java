package dev.walkit.format.kine;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kine's own rows, told from data by their names' bytes. */
class KineDbTest {
    private static boolean internal(String name) {
        return KineDb.internal(name.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void kinesOwnRowsAreNotData() {
        assertTrue(internal("compact_rev_key"));
        assertTrue(internal("compact_rev_key_apiserver"));
        assertTrue(internal("gap-"));
        assertTrue(internal("gap-1024"));
    }

    @Test
    void namesThatOnlyLookLikeThemAreData() {
        assertFalse(internal("compact_rev_ke"));
        assertFalse(internal("compact_rev_key_"));
        assertFalse(internal("compact_rev_key_apiserverx"));
        assertFalse(internal("gap"));
        assertFalse(internal("/registry/gap-1"));
        assertFalse(internal(""));
    }
}
