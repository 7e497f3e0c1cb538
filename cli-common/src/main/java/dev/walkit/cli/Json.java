package dev.walkit.cli;

/**
 * A small streaming JSON writer (no dependency, so that a tool's start stays light). Call
 * {@code begin/end} for objects and arrays, {@code name} before a member, then a value.
 */
public final class Json {
    private final StringBuilder sb = new StringBuilder();
    private boolean needComma;

    public Json beginObject() {
        comma();
        sb.append('{');
        needComma = false;
        return this;
    }

    public Json endObject() {
        sb.append('}');
        needComma = true;
        return this;
    }

    public Json beginArray() {
        comma();
        sb.append('[');
        needComma = false;
        return this;
    }

    public Json endArray() {
        sb.append(']');
        needComma = true;
        return this;
    }

    public Json name(String n) {
        comma();
        quote(n);
        sb.append(':');
        needComma = false;
        return this;
    }

    public Json value(String s) {
        comma();
        if (s == null) sb.append("null");
        else quote(s);
        needComma = true;
        return this;
    }

    public Json value(long v) {
        comma();
        sb.append(v);
        needComma = true;
        return this;
    }

    public Json value(boolean v) {
        comma();
        sb.append(v);
        needComma = true;
        return this;
    }

    /** A finite number (NaN and infinities are not JSON: written as null). */
    public Json value(double v) {
        comma();
        sb.append(Double.isFinite(v) ? Double.toString(v) : "null");
        needComma = true;
        return this;
    }

    public Json nullValue() {
        comma();
        sb.append("null");
        needComma = true;
        return this;
    }

    public Json field(String n, String v) {
        return name(n).value(v);
    }

    public Json field(String n, long v) {
        return name(n).value(v);
    }

    public Json field(String n, double v) {
        return name(n).value(v);
    }

    public Json field(String n, boolean v) {
        return name(n).value(v);
    }

    /** A member whose value is a number, or null when {@code v < 0}. */
    public Json fieldOrNull(String n, long v) {
        return v < 0 ? name(n).nullValue() : name(n).value(v);
    }

    private void comma() {
        if (needComma) sb.append(',');
    }

    private void quote(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
