package dev.walkit.doctor;

import dev.walkit.cli.KeyText;
import dev.walkit.format.KeyValue;
import dev.walkit.format.pass.StoreHistory;

import java.util.ArrayList;
import java.util.List;

/** The pass's history asked with keys as the tools print and read them ({@link KeyText}): what a test compares to the shell's text. */
public final class TextKeys {
    private TextKeys() {
    }

    /** The keys under {@code prefix} live at {@code rev}, in the printed form, in key order. */
    public static List<String> liveKeys(StoreHistory x, String prefix, long rev) {
        List<String> out = new ArrayList<>();
        byte[] p = KeyText.unquote(prefix);
        x.range(p, StoreHistory.prefixEnd(p), rev, Long.MAX_VALUE, false, kv -> out.add(KeyText.quote(kv.key())));
        return out;
    }

    public static long liveCount(StoreHistory x, String prefix, long rev) {
        byte[] p = KeyText.unquote(prefix);
        return x.range(p, StoreHistory.prefixEnd(p), rev, 0, false, null);
    }

    /** Every key the store ever had under {@code prefix}, printed. */
    public static List<String> keys(StoreHistory x, String prefix) {
        return x.keys(KeyText.unquote(prefix)).stream().map(KeyText::quote).toList();
    }

    public static KeyValue get(StoreHistory x, String key, long rev) {
        return x.get(KeyText.unquote(key), rev);
    }

    public static List<KeyValue> events(StoreHistory x, String key) {
        return x.events(KeyText.unquote(key));
    }
}
