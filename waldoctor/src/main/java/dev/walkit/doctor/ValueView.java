package dev.walkit.doctor;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Shows a value usefully: a Kubernetes protobuf object ({@code k8s\0} + runtime.Unknown) as
 * apiVersion, kind, namespace/name — decoded generically from the envelope's and ObjectMeta's
 * field numbers, with no Kubernetes dependency; JSON pretty-printed; other bytes as hex + ASCII.
 * Values under {@code /registry/secrets/} are redacted unless asked.
 */
public final class ValueView {
    static final byte[] K8S_MAGIC = {'k', '8', 's', 0};
    static final String SECRETS = "/registry/secrets/";

    private ValueView() {
    }

    /** The facts of a Kubernetes protobuf object. */
    public record K8sObject(String apiVersion, String kind, String namespace, String name) {
    }

    /** Decodes the envelope and ObjectMeta, or null when {@code v} is not a Kubernetes protobuf object. */
    public static K8sObject k8s(byte[] v) {
        if (v.length < 4 || v[0] != 'k' || v[1] != '8' || v[2] != 's' || v[3] != 0) return null;
        List<byte[]> typeMeta = field(v, 4, v.length, 1);
        List<byte[]> raw = field(v, 4, v.length, 2);
        if (typeMeta == null || raw == null || typeMeta.isEmpty()) return null;
        byte[] tm = typeMeta.get(0);
        String apiVersion = str(field(tm, 0, tm.length, 1));
        String kind = str(field(tm, 0, tm.length, 2));
        String name = null;
        String namespace = null;
        if (!raw.isEmpty()) {
            byte[] obj = raw.get(0);
            List<byte[]> meta = field(obj, 0, obj.length, 1);
            if (meta != null && !meta.isEmpty()) {
                byte[] m = meta.get(0);
                name = str(field(m, 0, m.length, 1));
                namespace = str(field(m, 0, m.length, 3));
            }
        }
        return new K8sObject(apiVersion, kind, namespace, name);
    }

    private static String str(List<byte[]> l) {
        return l == null || l.isEmpty() ? null : new String(l.get(l.size() - 1), StandardCharsets.UTF_8);
    }

    /** All length-delimited occurrences of {@code field} in [from, to); null when the bytes are not protobuf. */
    static List<byte[]> field(byte[] b, int from, int to, int field) {
        List<byte[]> out = new ArrayList<>();
        int i = from;
        while (i < to) {
            long[] v = new long[1];
            i = varint(b, i, to, v);
            if (i < 0) return null;
            int f = (int) (v[0] >>> 3);
            int wire = (int) (v[0] & 7);
            switch (wire) {
                case 0 -> {
                    i = varint(b, i, to, v);
                    if (i < 0) return null;
                }
                case 1 -> i += 8;
                case 5 -> i += 4;
                case 2 -> {
                    i = varint(b, i, to, v);
                    if (i < 0 || v[0] < 0 || v[0] > to - i) return null;
                    if (f == field) out.add(java.util.Arrays.copyOfRange(b, i, i + (int) v[0]));
                    i += (int) v[0];
                }
                default -> {
                    return null;
                }
            }
            if (i > to) return null;
        }
        return out;
    }

    private static int varint(byte[] b, int i, int to, long[] out) {
        long r = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (i >= to) return -1;
            byte x = b[i++];
            r |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                out[0] = r;
                return i;
            }
        }
        return -1;
    }

    /** One line: what the value is. */
    public static String summary(String key, byte[] v, boolean showSecrets) {
        if (key.startsWith(SECRETS) && !showSecrets) return "<redacted: " + v.length + " bytes; --show-secrets to show>";
        K8sObject o = k8s(v);
        if (o != null) {
            return "k8s protobuf " + o.apiVersion() + " " + o.kind() + " " + (o.namespace() == null || o.namespace().isEmpty() ? "" : o.namespace() + "/")
                    + o.name() + " (" + v.length + " bytes)";
        }
        String text = utf8(v);
        if (text != null && looksJson(text)) {
            String one = text.replaceAll("\\s+", " ");
            return "json " + (one.length() > 100 ? one.substring(0, 100) + "…" : one) + " (" + v.length + " bytes)";
        }
        return v.length + " bytes";
    }

    /** The whole value for display. */
    public static String render(String key, byte[] v, boolean showSecrets) {
        if (key.startsWith(SECRETS) && !showSecrets) return "<redacted: " + v.length + " bytes; --show-secrets to show>";
        K8sObject o = k8s(v);
        if (o != null) {
            return "apiVersion: " + o.apiVersion() + "\nkind: " + o.kind() + "\nnamespace: " + o.namespace() + "\nname: " + o.name()
                    + "\n(Kubernetes protobuf, " + v.length + " bytes)";
        }
        String text = utf8(v);
        if (text != null && looksJson(text)) return prettyJson(text);
        if (text != null && text.chars().allMatch(c -> c >= 0x20 || c == '\n' || c == '\t')) return text;
        return hexdump(v, 0, Math.min(v.length, 4096)) + (v.length > 4096 ? "… (" + v.length + " bytes)" : "");
    }

    static String utf8(byte[] v) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(v)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static boolean looksJson(String s) {
        String t = s.strip();
        return (t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"));
    }

    /** Indents JSON text two spaces a level (strings kept as they are). */
    public static String prettyJson(String s) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                out.append(c);
                if (c == '\\' && i + 1 < s.length()) out.append(s.charAt(++i));
                else if (c == '"') inString = false;
                continue;
            }
            switch (c) {
                case '"' -> {
                    inString = true;
                    out.append(c);
                }
                case '{', '[' -> {
                    out.append(c);
                    depth++;
                    newline(out, depth);
                }
                case '}', ']' -> {
                    depth--;
                    newline(out, depth);
                    out.append(c);
                }
                case ',' -> {
                    out.append(c);
                    newline(out, depth);
                }
                case ':' -> out.append(": ");
                case ' ', '\n', '\t', '\r' -> { }
                default -> out.append(c);
            }
        }
        return out.toString().replaceAll("\\{\\s+}", "{}").replaceAll("\\[\\s+]", "[]");
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) out.append("  ");
    }

    /** Classic 16-byte hex + ASCII lines; offsets start at {@code base}. */
    public static String hexdump(byte[] b, long base, int len) {
        return hexdump(b, base, len, new boolean[len]);
    }

    /** With the bytes {@code hidden} marks shown as {@code **} and {@code *}. */
    public static String hexdump(byte[] b, long base, int len, boolean[] hidden) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i += 16) sb.append(hexdumpLine(b, base, i, len, hidden));
        return sb.toString();
    }

    /** The line of the dump that starts at byte {@code i} of {@code b} (of {@code len}), its offset {@code base + i}. */
    public static String hexdumpLine(byte[] b, long base, int i, int len, boolean[] hidden) {
        StringBuilder sb = new StringBuilder(80);
        sb.append(String.format("%08x  ", base + i));
        for (int j = 0; j < 16; j++) {
            if (i + j < len) sb.append(hidden[i + j] ? "** " : String.format("%02x ", b[i + j] & 0xFF));
            else sb.append("   ");
            if (j == 7) sb.append(' ');
        }
        sb.append(" |");
        for (int j = 0; j < 16 && i + j < len; j++) {
            int c = b[i + j] & 0xFF;
            sb.append(hidden[i + j] ? '*' : c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        return sb.append("|\n").toString();
    }
}
