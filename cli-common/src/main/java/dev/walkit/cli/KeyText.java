package dev.walkit.cli;

/**
 * A key in text output, unambiguous and pasteable: printable ASCII as it is (a backslash doubled), every other
 * byte as {@code \xNN}, and so the space, the quotes and {@code #}, which a shell's line would take for its own: a
 * printed key pasted back, bare or quoted, is the key. {@link #unquote} takes it back (and a key typed as UTF-8 text:
 * its bytes).
 */
public final class KeyText {
    private KeyText() {
    }

    public static String quote(byte[] key) {
        return dev.walkit.format.KeyQuote.quote(key);
    }

    /**
     * The bytes of a key as typed or printed: {@code \xNN} is the byte NN, {@code \\} a backslash, anything else its
     * UTF-8 bytes (so {@code café} and {@code caf\xc3\xa9} are one key). {@code unquote(quote(k))} is {@code k}.
     */
    public static byte[] unquote(String text) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(text.length() + 8);
        int n = text.length();
        for (int i = 0; i < n; ) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < n && text.charAt(i + 1) == '\\') {
                out.write('\\');
                i += 2;
            } else if (c == '\\' && i + 3 < n && text.charAt(i + 1) == 'x' && hex(text.charAt(i + 2)) >= 0 && hex(text.charAt(i + 3)) >= 0) {
                out.write(hex(text.charAt(i + 2)) * 16 + hex(text.charAt(i + 3)));
                i += 4;
            } else if (c < 0x80) {
                out.write(c);
                i++;
            } else {
                int cp = text.codePointAt(i);
                byte[] b = new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
                i += Character.charCount(cp);
            }
        }
        return out.toByteArray();
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
}
