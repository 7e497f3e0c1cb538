package dev.walkit.format;

/**
 * A key in text, unambiguous and pasteable, the one quoting every report uses (the tools' {@code KeyText} takes it
 * back): printable ASCII as it is (a backslash doubled), every other byte as {@code \xNN}, and so the space, the
 * quotes and {@code #}, which a shell's line would take for its own.
 */
public final class KeyQuote {
    private KeyQuote() {
    }

    public static String quote(byte[] key) {
        StringBuilder b = new StringBuilder(key.length + 8);
        for (byte x : key) {
            int c = x & 0xff;
            if (c == '\\') b.append("\\\\");
            else if (c > 0x20 && c < 0x7f && c != '\'' && c != '"' && c != '#') b.append((char) c);
            else b.append(String.format("\\x%02x", c));
        }
        return b.toString();
    }
}
