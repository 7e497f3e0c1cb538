package dev.walkit.doctor;

import dev.walkit.format.pass.StoreHistory;
import dev.walkit.format.WalFormat;
import dev.walkit.format.replay.DamageLocator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The revisions damaged bytes took whose keys no byte names: for each span across which revisions are missing, the
 * window, and the resources the transactions just before and just after it wrote (what the lost ones most likely were:
 * a workload writes the same resources in runs). What cannot be known, said in one line, with the nearest evidence.
 */
public final class LostWindows {
    /** Transactions read on each side of a window. */
    static final int AROUND = 10;
    /** Windows described (the account counts them all). */
    static final int MAX = 32;

    /** Revisions {@code from..to} lost in the span at {@code offset}; the resources written around them, most first. */
    public record Window(long offset, long from, long to, Map<String, Integer> writtenAround) {
        public long count() {
            return to - from + 1;
        }
    }

    private LostWindows() {
    }

    static List<Window> of(StoreHistory x) {
        if (!x.source().isWal() || x.format() != WalFormat.V2) return List.of();
        List<Window> out = new ArrayList<>();
        for (DamageLocator.Located l : x.damage()) {
            if (l.revisionBefore() < 0 || l.revisionAfter() <= l.revisionBefore() + 1) continue;
            if (out.size() == MAX) break;
            int before = x.lastTxnAtOrBefore(l.span().offset());
            Map<String, Integer> counts = new java.util.HashMap<>();
            for (int i = Math.max(0, before - AROUND + 1); i <= before + AROUND && i < x.transactionCount(); i++) {
                if (i < 0) continue;
                for (byte[] k : x.txnKeys(i)) counts.merge(ResourceTable.resourceOf(k), 1, Integer::sum);
            }
            Map<String, Integer> sorted = new LinkedHashMap<>();
            counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .forEach(e -> sorted.put(e.getKey(), e.getValue()));
            out.add(new Window(l.span().offset(), l.revisionBefore() + 1, l.revisionAfter() - 1, sorted));
        }
        return List.copyOf(out);
    }

    /** {@code revisions 1138..1140 (3) lost in the damaged bytes at offset 1,999,929: what they wrote cannot be read (…); written just before and after (…): events 4, leases 2}. */
    static String text(Window w) {
        StringBuilder b = new StringBuilder(String.format("revisions %d..%d (%,d) lost in the damaged bytes at offset %,d: what they wrote cannot be read (beyond any key named above);", w.from(), w.to(),
                w.count(), w.offset()));
        if (w.writtenAround().isEmpty()) return b.append(" nothing written around them was read").toString();
        b.append(" written just before and after (").append(AROUND).append(" transactions each side):");
        w.writtenAround().forEach((r, n) -> b.append(' ').append(r).append(' ').append(n).append(','));
        b.setLength(b.length() - 1);
        return b.toString();
    }
}
