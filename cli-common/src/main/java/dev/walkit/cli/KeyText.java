package dev.walkit.cli;

/**
 * A key in text output, unambiguous and pasteable: printable ASCII as it is (a backslash doubled), every other
 * byte as {@code \xNN}.
 */
public final class KeyText {
    private KeyText() {
    }

    public static String quote(byte[] key) {
        StringBuilder b = new StringBuilder(key.length + 8);
        for (byte x : key) {
            int c = x & 0xff;
            if (c == '\\') b.append("\\\\");
            else if (c >= 0x20 && c < 0x7f) b.append((char) c);
            else b.append(String.format("\\x%02x", c));
        }
        return b.toString();
    }
}
