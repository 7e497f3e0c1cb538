package dev.walkit.format;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Keys in their one printed form: printable ASCII and printable UTF-8 as they are, every other byte as \xNN. */
class KeyQuoteTest {
    static String q(byte[] b) {
        return KeyQuote.quote(b);
    }

    @Test
    void printableUtf8AsItIsEverythingElseEscaped() {
        assertEquals("/registry/configmaps/default/café-ünïcode", q("/registry/configmaps/default/café-ünïcode".getBytes(StandardCharsets.UTF_8)));
        assertEquals("/k/日本", q("/k/日本".getBytes(StandardCharsets.UTF_8)));
        assertEquals("/k/\\xff\\x00", q(new byte[] {'/', 'k', '/', (byte) 0xff, 0}), "not UTF-8, and a NUL");
        assertEquals("/k/\\xc3", q(new byte[] {'/', 'k', '/', (byte) 0xc3}), "a sequence cut short");
        assertEquals("/k/\\xc0\\xaf", q(new byte[] {'/', 'k', '/', (byte) 0xc0, (byte) 0xaf}), "an overlong form");
        assertEquals("/k/\\xed\\xa0\\x80", q(new byte[] {'/', 'k', '/', (byte) 0xed, (byte) 0xa0, (byte) 0x80}), "a surrogate");
        assertEquals("/k/\\xee\\x80\\x80", q("/k/\uE000".getBytes(StandardCharsets.UTF_8)), "private use");
        assertEquals("/k/\\xe2\\x80\\x8b", q("/k/\u200B".getBytes(StandardCharsets.UTF_8)), "a zero-width space (format)");
        assertEquals("/k/\\xc2\\xa0", q("/k/\u00A0".getBytes(StandardCharsets.UTF_8)), "a no-break space");
        assertEquals("/a\\x20b\\x27\\x22\\x23\\\\", q("/a b'\"#\\".getBytes(StandardCharsets.UTF_8)), "space, quotes, # and a backslash");
    }
}
