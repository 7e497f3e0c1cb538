package dev.walkit.format;

/**
 * A key in text, unambiguous and pasteable, the one quoting every report uses (the tools' {@code KeyText} takes it
 * back): printable ASCII as it is (a backslash doubled), printable UTF-8 as it is ({@code café}), every other byte as
 * {@code \xNN}: bytes that are no UTF-8, control and format characters, and the space, the quotes and {@code #}, which
 * a shell's line would take for its own.
 */
public final class KeyQuote {
    private KeyQuote() {
    }

    public static String quote(byte[] key) {
        StringBuilder b = new StringBuilder(key.length + 8);
        for (int i = 0; i < key.length; ) {
            int c = key[i] & 0xff;
            if (c < 0x80) {
                if (c == '\\') b.append("\\\\");
                else if (c > 0x20 && c < 0x7f && c != '\'' && c != '"' && c != '#') b.append((char) c);
                else b.append(String.format("\\x%02x", c));
                i++;
                continue;
            }
            int n = utf8Printable(key, i);
            if (n > 0) {
                b.append(new String(key, i, n, java.nio.charset.StandardCharsets.UTF_8));
                i += n;
            } else {
                b.append(String.format("\\x%02x", c));
                i++;
            }
        }
        return b.toString();
    }

    /** The length of the well-formed UTF-8 sequence at {@code i} when it encodes a printable character (a letter, a mark, a symbol …); else 0. */
    private static int utf8Printable(byte[] k, int i) {
        int c = k[i] & 0xff;
        int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (n == 0 || i + n > k.length) return 0;
        int cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
        for (int j = 1; j < n; j++) {
            int x = k[i + j] & 0xff;
            if ((x & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (x & 0x3f);
        }
        // Shortest form only, no surrogate, in range.
        if (n == 3 && cp < 0x800 || n == 4 && (cp < 0x10000 || cp > 0x10ffff) || cp >= 0xd800 && cp <= 0xdfff) return 0;
        int type = Character.getType(cp);
        boolean printable = type != Character.CONTROL && type != Character.FORMAT && type != Character.PRIVATE_USE && type != Character.SURROGATE
                && type != Character.UNASSIGNED && type != Character.SPACE_SEPARATOR && type != Character.LINE_SEPARATOR
                && type != Character.PARAGRAPH_SEPARATOR;
        return printable ? n : 0;
    }
}
