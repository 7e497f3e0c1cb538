package dev.walkit.format;

/**
 * Whether bytes are one JSON text (RFC 8259): a value between optional whitespace; objects, arrays, strings (no raw
 * control character, only JSON's escapes, well-formed UTF-8), numbers in JSON's grammar, true, false and null; nesting
 * to any depth without recursion. Nothing is built: a validity check at memory speed for every stored value
 * ({@link ValueCheck}), where a parser's tokens, names and contexts cost several times as much. {@code JsonSyntaxTest}
 * holds it to jackson's parser on real and mutated values.
 */
public final class JsonSyntax {
    private JsonSyntax() {
    }

    /** Null when {@code b[from, to)} is one JSON text; else what is wrong and where. */
    public static String check(byte[] b, int from, int to) {
        // Each open container's kind: 1 an object, 2 an array; a long's bits hold 64 levels, an array the rest.
        byte[] stack = new byte[16];
        int depth = 0;
        int i = ws(b, from, to);
        // What may come next: a value, or (in a container) a value, its end, a comma or a colon.
        boolean needValue = true;
        boolean seenAny = false;
        while (true) {
            if (needValue) {
                if (i >= to) return "the text ends where a value should be (byte " + i + ")";
                int c = b[i] & 0xff;
                switch (c) {
                    case '{' -> {
                        if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2);
                        stack[depth++] = 1;
                        i = ws(b, i + 1, to);
                        if (i < to && b[i] == '}') {
                            depth--;
                            i++;
                            needValue = false;
                        } else {
                            i = member(b, i, to);
                            if (i < 0) return memberError(b, -i - 1, to);
                            continue;
                        }
                    }
                    case '[' -> {
                        if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2);
                        stack[depth++] = 2;
                        i = ws(b, i + 1, to);
                        if (i < to && b[i] == ']') {
                            depth--;
                            i++;
                            needValue = false;
                        } else {
                            continue;
                        }
                    }
                    case '"' -> {
                        i = string(b, i, to);
                        if (i < 0) return "a string that does not end well (byte " + (-i - 1) + ")";
                        needValue = false;
                    }
                    case 't' -> {
                        if (!word(b, i, to, "true")) return "not a value at byte " + i;
                        i += 4;
                        needValue = false;
                    }
                    case 'f' -> {
                        if (!word(b, i, to, "false")) return "not a value at byte " + i;
                        i += 5;
                        needValue = false;
                    }
                    case 'n' -> {
                        if (!word(b, i, to, "null")) return "not a value at byte " + i;
                        i += 4;
                        needValue = false;
                    }
                    default -> {
                        int e = number(b, i, to);
                        if (e < 0) return "not a value at byte " + i;
                        i = e;
                        needValue = false;
                    }
                }
                seenAny = true;
            }
            i = ws(b, i, to);
            if (depth == 0) return i == to && seenAny ? null : "bytes after the value at byte " + i;
            if (i >= to) return "the text ends inside " + (stack[depth - 1] == 1 ? "an object" : "an array");
            int c = b[i];
            if (c == ',') {
                i = ws(b, i + 1, to);
                if (stack[depth - 1] == 1) {
                    i = member(b, i, to);
                    if (i < 0) return memberError(b, -i - 1, to);
                }
                needValue = true;
            } else if ((c == '}' && stack[depth - 1] == 1) || (c == ']' && stack[depth - 1] == 2)) {
                depth--;
                i++;
            } else {
                return "',' or the container's end expected at byte " + i;
            }
        }
    }

    /** Past an object member's name and its ':' (and the whitespace after) at {@code i}; {@code -i - 1} when they are not there. */
    private static int member(byte[] b, int i, int to) {
        if (i >= to || b[i] != '"') return -i - 1;
        int e = string(b, i, to);
        if (e < 0) return -i - 1;
        e = ws(b, e, to);
        if (e >= to || b[e] != ':') return -i - 1;
        return ws(b, e + 1, to);
    }

    /** What is wrong with the member that should start at {@code i}. */
    private static String memberError(byte[] b, int i, int to) {
        if (i >= to || b[i] != '"') return "an object's name expected at byte " + i;
        int e = string(b, i, to);
        if (e < 0) return "a string that does not end well (byte " + (-e - 1) + ")";
        return "':' expected at byte " + ws(b, e, to);
    }

    private static int ws(byte[] b, int i, int to) {
        while (i < to) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
            i++;
        }
        return i;
    }

    private static boolean word(byte[] b, int i, int to, String w) {
        if (i + w.length() > to) return false;
        for (int k = 0; k < w.length(); k++) if (b[i + k] != w.charAt(k)) return false;
        return true;
    }

    /** Past the string starting with the quote at {@code i}; {@code -(where) - 1} when it does not end well. */
    private static int string(byte[] b, int i, int to) {
        i++;
        while (i < to) {
            int c = b[i] & 0xff;
            if (c == '"') return i + 1;
            if (c == '\\') {
                if (i + 1 >= to) return -i - 1;
                int e = b[i + 1];
                if (e == 'u') {
                    if (i + 6 > to) return -i - 1;
                    for (int k = 2; k < 6; k++) if (Character.digit(b[i + k], 16) < 0) return -i - 1;
                    i += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                    i += 2;
                } else {
                    return -i - 1;
                }
            } else if (c < 0x20) {
                return -i - 1;
            } else if (c < 0x80) {
                i++;
            } else {
                int n = utf8(b, i, to);
                if (n < 0) return -i - 1;
                i += n;
            }
        }
        return -i - 1;
    }

    /** The length of the well-formed UTF-8 sequence at {@code i} (its lead byte ≥ 0x80), or -1. */
    private static int utf8(byte[] b, int i, int to) {
        int c = b[i] & 0xff;
        int n;
        int min;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 2;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            min = 0x10000;
        } else {
            return -1;
        }
        if (i + n > to) return -1;
        int cp = c & (0xff >> (n + 1));
        for (int k = 1; k < n; k++) {
            int x = b[i + k] & 0xff;
            if ((x & 0xc0) != 0x80) return -1;
            cp = (cp << 6) | (x & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
        return n;
    }

    /** Past the number at {@code i} (JSON's grammar: -? int frac? exp?), or -1. */
    private static int number(byte[] b, int i, int to) {
        int s = i;
        if (i < to && b[i] == '-') i++;
        if (i >= to) return -1;
        if (b[i] == '0') {
            i++;
        } else if (b[i] >= '1' && b[i] <= '9') {
            while (i < to && b[i] >= '0' && b[i] <= '9') i++;
        } else {
            return -1;
        }
        if (i < to && b[i] == '.') {
            i++;
            int d = i;
            while (i < to && b[i] >= '0' && b[i] <= '9') i++;
            if (i == d) return -1;
        }
        if (i < to && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < to && (b[i] == '+' || b[i] == '-')) i++;
            int d = i;
            while (i < to && b[i] >= '0' && b[i] <= '9') i++;
            if (i == d) return -1;
        }
        return i > s ? i : -1;
    }
}
