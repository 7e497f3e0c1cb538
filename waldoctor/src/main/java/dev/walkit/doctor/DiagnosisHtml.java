package dev.walkit.doctor;

import dev.walkit.cli.KeyText;
import dev.walkit.cli.render.AccountText;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.account.Account;
import dev.walkit.format.assess.Meaning;
import dev.walkit.format.replay.DamageLocator;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code -w html}: the incident report as one self-contained page (inline CSS and SVG, no script, nothing fetched),
 * drawn from the same {@link Diagnosis} every other format prints: a map of the file with each damaged span and
 * finding at its offset, the revisions over the file (the lost windows as gaps), writes per tenth of the revisions,
 * the key space by resource, the largest values, the affected keys, the verdict and the next commands. The page
 * says what was examined: the tool's version, the input's path, size and SHA-256, and when.
 */
final class DiagnosisHtml implements DiagnosisPrinter {
    /** What the page says of the examination, beside the diagnosis. */
    record Examined(String version, String path, long bytes, String sha256, Instant at) {
    }

    private static final int W = 960;
    private final Examined examined;

    DiagnosisHtml(Examined examined) {
        this.examined = examined;
    }

    @Override
    public void print(PrintWriter out, Diagnosis d) {
        out.print(page(d));
        out.flush();
    }

    String page(Diagnosis d) {
        Account a = d.account();
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>walkit incident report: ")
                .append(esc(examined.path())).append("</title>\n<style>").append(CSS).append("</style></head>\n<body>\n");
        String verdict = d.verdict().label();
        h.append("<header><h1>Incident report</h1><p class=\"verdict v-").append(esc(verdict)).append("\" id=\"verdict\">")
                .append(esc(DiagnosisPrinter.verdictLine(d))).append("</p>\n");
        h.append("<table class=\"facts\"><tr><th>input</th><td>").append(esc(examined.path())).append("</td></tr><tr><th>size</th><td>")
                .append(String.format(Locale.ROOT, "%,d bytes", examined.bytes())).append("</td></tr><tr><th>SHA-256</th><td><code>")
                .append(esc(examined.sha256())).append("</code></td></tr><tr><th>examined</th><td>").append(esc(examined.at().toString()))
                .append(" by ").append(esc(examined.version())).append("</td></tr></table></header>\n");

        h.append("<section><h2>What this is</h2><p>").append(esc(AccountText.kind(a))).append("<br>").append(esc(AccountText.read(a)));
        String state = AccountText.state(a);
        if (state != null) h.append("<br>").append(esc(state));
        if (d.facts().nextLeaseId() >= 0) h.append(" (next lease ID ").append(dev.walkit.cli.LeaseId.text(d.facts().nextLeaseId())).append(" (").append(d.facts().nextLeaseId()).append("))");
        h.append("</p>");
        if (!a.store().isWal()) {
            h.append("<p>The store's own facts: ").append(esc(a.store().detail())).append("</p>");
        }
        if (!a.store().damage().isEmpty()) {
            h.append("<ul class=\"store-damage\">");
            for (String s : a.store().damage()) h.append("<li class=\"store-damage-mark\">").append(esc(s)).append("</li>");
            h.append("</ul>");
        }
        h.append("</section>\n");

        h.append("<section><h2>Next</h2><pre class=\"next\">");
        for (String n : d.next()) h.append(esc(n)).append('\n');
        h.append("</pre></section>\n");

        if (a.store().isWal()) {
            map(h, d);
            revisions(h, d);
        }
        damageTable(h, a);
        if (a.replayed() && a.revisions() != null && (!a.drops().isEmpty() || a.lostUpTo() > 0 || !a.affectedKeys().isEmpty() || !d.lostWindows().isEmpty())) {
            h.append("<section><h2>What it costs</h2><p>").append(esc(a.revisions().text())).append("</p>");
            if (!a.affectedKeys().isEmpty()) {
                h.append("<p>" + esc(Character.toUpperCase(AccountText.AFFECTED.charAt(0)) + AccountText.AFFECTED.substring(1)) + ":</p><ul class=\"affected\">");
                for (byte[] k : a.affectedKeys()) h.append("<li><code>").append(esc(KeyText.quote(k))).append("</code></li>");
                h.append("</ul>");
            }
            for (LostWindows.Window w : d.lostWindows()) h.append("<p class=\"window\">").append(esc(LostWindows.text(w))).append("</p>");
            h.append("</section>\n");
        }
        if (!d.signatures().isEmpty()) {
            h.append("<section><h2>Known signatures</h2><ul>");
            for (Diagnosis.Signature g : d.signatures()) h.append("<li><b>").append(esc(g.name())).append("</b>: ").append(esc(g.explanation())).append("</li>");
            h.append("</ul></section>\n");
        }
        writes(h, d);
        resources(h, d);
        h.append("<section><h2>Largest values</h2><table><tr><th>bytes</th><th>key</th></tr>");
        for (Diagnosis.Largest l : d.largest()) {
            h.append("<tr><td class=\"n\">").append(String.format(Locale.ROOT, "%,d", l.bytes())).append("</td><td><code>").append(esc(KeyText.quote(l.key())))
                    .append("</code></td></tr>");
        }
        h.append("</table></section>\n");
        h.append("<footer>Values are not shown (Secrets stay redacted); keys are quoted as every walkit tool quotes them. ")
                .append("The same report: <code>waldoctor diagnose PATH</code> (text), <code>-w json</code>, <code>-w table</code>.</footer>\n");
        return h.append("</body></html>\n").toString();
    }

    /** The file as a bar: the snapshot prefix, each damaged span (at least 3 pixels) and each finding at its offset. */
    private void map(StringBuilder h, Diagnosis d) {
        Account a = d.account();
        long size = Math.max(1, a.store().bytes());
        h.append("<section><h2>Map of the file</h2><svg class=\"map\" width=\"100%\" viewBox=\"0 0 ")
                .append(W + 20).append(" 78\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"map of the file\">");
        h.append("<rect x=\"10\" y=\"18\" width=\"").append(W).append("\" height=\"30\" class=\"file\"><title>")
                .append(String.format(Locale.ROOT, "%,d bytes", a.store().bytes())).append("</title></rect>");
        if (d.facts().prefixEnd() > 0) {
            h.append("<rect x=\"10\" y=\"18\" width=\"").append(px(d.facts().prefixEnd(), size)).append("\" height=\"30\" class=\"prefix\"><title>snapshot prefix: ")
                    .append(String.format(Locale.ROOT, "%,d bytes, compact revision %d", d.facts().prefixEnd(), a.compactRevision())).append("</title></rect>");
        }
        for (DamageLocator.Located l : a.damage()) {
            DamageSpan s = l.span();
            h.append("<rect class=\"damage-mark\" data-kind=\"").append(esc(s.kind().label())).append("\" x=\"").append(10 + px(s.offset(), size))
                    .append("\" y=\"14\" width=\"").append(Math.max(3, px(s.length(), size))).append("\" height=\"38\" fill=\"").append(colour(s.kind().ordinal()))
                    .append("\"><title>").append(esc(s.kind().label() + " at offset " + String.format(Locale.ROOT, "%,d", s.offset()) + ", "
                            + String.format(Locale.ROOT, "%,d", s.length()) + " bytes, " + revisionsAround(l) + ": " + Meaning.of(s.kind(), a.verdict())))
                    .append("</title></rect>");
        }
        for (Finding f : a.findings()) {
            int x = 10 + px(f.offset(), size);
            h.append("<path class=\"finding-mark\" d=\"M").append(x).append(" 52 l-5 10 h10 z\" fill=\"").append(colour(f.kind().ordinal())).append("\"><title>")
                    .append(esc(f.kind().label() + " at offset " + String.format(Locale.ROOT, "%,d", f.offset()) + ": " + f.detail())).append("</title></path>");
        }
        h.append("<text x=\"10\" y=\"12\">0</text><text x=\"").append(W + 10).append("\" y=\"12\" text-anchor=\"end\">")
                .append(String.format(Locale.ROOT, "%,d bytes", a.store().bytes())).append("</text>");
        h.append("<text x=\"10\" y=\"75\">grey: records; darker: the snapshot prefix; coloured: damaged spans (above) and findings (below)</text></svg>");
        // The legend: each kind on the map, its colour.
        java.util.TreeMap<Integer, String> kinds = new java.util.TreeMap<>();
        for (DamageLocator.Located l : a.damage()) kinds.put(l.span().kind().ordinal(), l.span().kind().label());
        for (Finding f : a.findings()) kinds.put(f.kind().ordinal(), f.kind().label());
        if (!kinds.isEmpty()) {
            h.append("<p class=\"legend\">");
            kinds.forEach((o, label) -> h.append("<span class=\"swatch\" style=\"background:").append(colour(o)).append("\"></span>").append(esc(label)).append(' '));
            h.append("</p>");
        }
        h.append("</section>\n");
    }

    /** Revision against offset: the sampled transactions as a line, the damaged spans as bands where revisions are missing. */
    private void revisions(StringBuilder h, Diagnosis d) {
        List<long[]> pts = d.facts().revisionsByOffset();
        if (pts.size() < 2) return;
        Account a = d.account();
        long size = Math.max(1, a.store().bytes());
        long lo = pts.get(0)[1];
        long hi = pts.get(pts.size() - 1)[1];
        for (long[] p : pts) {
            lo = Math.min(lo, p[1]);
            hi = Math.max(hi, p[1]);
        }
        long span = Math.max(1, hi - lo);
        int height = 180;
        h.append("<section><h2>Revisions over the file</h2><svg class=\"revisions\" width=\"100%\" viewBox=\"0 0 ").append(W + 20).append(' ').append(height + 30)
                .append("\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"revision against offset\">");
        for (DamageLocator.Located l : a.damage()) {
            h.append("<rect class=\"band\" x=\"").append(10 + px(l.span().offset(), size)).append("\" y=\"10\" width=\"").append(Math.max(2, px(l.span().length(), size)))
                    .append("\" height=\"").append(height).append("\" fill=\"").append(colour(l.span().kind().ordinal())).append("\"><title>")
                    .append(esc(l.span().kind().label() + ": " + revisionsAround(l))).append("</title></rect>");
        }
        h.append("<polyline class=\"line\" points=\"");
        for (long[] p : pts) {
            h.append(10 + px(p[0], size)).append(',').append(10 + height - (int) ((p[1] - lo) * height / span)).append(' ');
        }
        h.append("\"/><text x=\"12\" y=\"22\">revision ").append(hi).append("</text><text x=\"12\" y=\"").append(height + 5).append("\">revision ").append(lo)
                .append("</text><text x=\"").append(W + 10).append("\" y=\"").append(height + 25).append("\" text-anchor=\"end\">offset</text></svg></section>\n");
    }

    /** Where the span sits among the revisions, in the words every text report uses. */
    private static String revisionsAround(DamageLocator.Located l) {
        return dev.walkit.cli.Revision.where(l.revisionBefore(), l.revisionAfter());
    }

    /** The damage and findings as a table (what the map's marks say on hover, for copying). */
    private void damageTable(StringBuilder h, Account a) {
        h.append("<section><h2>Damage and findings</h2>");
        if (a.damage().isEmpty() && a.findings().isEmpty()) {
            h.append("<p>None: ").append(a.store().damage().isEmpty() ? "the store is healthy." : "only the store's own damage, above.").append("</p></section>\n");
            return;
        }
        h.append("<table><tr><th>offset</th><th>bytes</th><th>kind</th><th>revisions</th><th>detail</th><th>meaning</th></tr>");
        // Spans and findings in one list, in the file's order (a span before a finding at the same offset).
        record Row(long offset, int order, String html) {
        }
        List<Row> rows = new java.util.ArrayList<>();
        for (DamageLocator.Located l : a.damage()) {
            DamageSpan s = l.span();
            StringBuilder r = new StringBuilder();
            row(r, s.offset(), s.length(), s.kind().label(), revisionsAround(l), s.describe(), Meaning.of(s.kind(), a.verdict()));
            rows.add(new Row(s.offset(), 0, r.toString()));
        }
        for (Finding f : a.findings()) {
            StringBuilder r = new StringBuilder();
            row(r, f.offset(), f.length(), f.kind().label(), "revision " + dev.walkit.cli.Revision.text(f.revision()), f.detail(), Meaning.of(f.kind()));
            rows.add(new Row(f.offset(), 1, r.toString()));
        }
        rows.sort(java.util.Comparator.comparingLong(Row::offset).thenComparingInt(Row::order));
        for (Row r : rows) h.append(r.html());
        h.append("</table></section>\n");
    }

    private static void row(StringBuilder h, long offset, long length, String kind, String revisions, String detail, String meaning) {
        h.append("<tr><td class=\"n\">").append(String.format(Locale.ROOT, "%,d", offset)).append("</td><td class=\"n\">")
                .append(String.format(Locale.ROOT, "%,d", length)).append("</td><td>").append(esc(kind)).append("</td><td>").append(esc(revisions))
                .append("</td><td>").append(esc(detail)).append("</td><td>").append(esc(meaning)).append("</td></tr>");
    }

    private void writes(StringBuilder h, Diagnosis d) {
        List<Long> w = d.writesPerTenth();
        long max = Math.max(1, w.stream().mapToLong(Long::longValue).max().orElse(1));
        int bar = 60;
        h.append("<section><h2>Writes per tenth of the revision range</h2><svg class=\"writes\" width=\"100%\" viewBox=\"0 0 ").append(w.size() * (bar + 10) + 20)
                .append(" 170\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"writes per tenth\">");
        for (int i = 0; i < w.size(); i++) {
            int hgt = (int) (w.get(i) * 120 / max);
            h.append("<rect class=\"bar\" x=\"").append(10 + i * (bar + 10)).append("\" y=\"").append(140 - hgt).append("\" width=\"").append(bar)
                    .append("\" height=\"").append(hgt).append("\"><title>").append(String.format(Locale.ROOT, "tenth %d: %,d writes", i + 1, w.get(i)))
                    .append("</title></rect><text x=\"").append(10 + i * (bar + 10) + bar / 2).append("\" y=\"160\" text-anchor=\"middle\">")
                    .append(String.format(Locale.ROOT, "%,d", w.get(i))).append("</text>");
        }
        h.append("</svg></section>\n");
    }

    private void resources(StringBuilder h, Diagnosis d) {
        long keys = 1;
        long bytes = 1;
        long writes = 1;
        for (Diagnosis.Resource r : d.resources()) {
            keys = Math.max(keys, r.liveKeys());
            bytes = Math.max(bytes, r.liveBytes());
            writes = Math.max(writes, r.writes());
        }
        h.append("<section><h2>Key space by resource</h2><table class=\"resources\"><tr><th>resource</th><th>live keys</th><th>live bytes</th><th>writes</th></tr>");
        for (Diagnosis.Resource r : d.resources()) {
            h.append("<tr><td>").append(esc(r.name())).append("</td>");
            cell(h, r.liveKeys(), keys);
            cell(h, r.liveBytes(), bytes);
            cell(h, r.writes(), writes);
            h.append("</tr>");
        }
        h.append("</table></section>\n");
    }

    private static void cell(StringBuilder h, long v, long max) {
        h.append("<td class=\"n\"><span class=\"hbar\" style=\"width:").append(v * 120 / max).append("px\"></span>")
                .append(String.format(Locale.ROOT, "%,d", v)).append("</td>");
    }

    /** Pixels of {@code bytes} on a bar of {@link #W} for a file of {@code size}. */
    private static int px(long bytes, long size) {
        return (int) Math.min(W, (double) bytes * W / size);
    }

    /**
     * A colour a kind, from its place among the kinds: no table to keep in step with them. Never a green (hues 75–165):
     * on a page about damage green reads as "fine", and no damage or finding is.
     */
    static String colour(int ordinal) {
        return "hsl(" + (180 + (ordinal * 47) % 255) % 360 + ",75%,45%)";
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static final String CSS = """
            body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;padding:0 24px;max-width:1000px;color:#1b1f24;background:#fff}
            svg{max-width:100%;height:auto}
            h1{font-size:22px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:3px}
            table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
            td.n{text-align:right;white-space:nowrap}table.facts th{background:#f6f8fa}code,pre{font:12px ui-monospace,monospace}
            pre.next{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;user-select:all}
            .verdict{font-weight:600;padding:6px 10px;border-radius:4px;display:inline-block}
            .v-healthy{background:#dafbe1;color:#116329}.v-torn-tail{background:#fff8c5;color:#7d4e00}
            .v-damaged,.v-rules-broken{background:#ffebe9;color:#a40e26}
            svg text{font:11px system-ui,sans-serif;fill:#57606a}rect.file{fill:#d8dee4}rect.prefix{fill:#8c959f}
            rect.band{opacity:.35}polyline.line{fill:none;stroke:#0969da;stroke-width:1.5}rect.bar{fill:#0969da}
            .hbar{display:inline-block;height:9px;background:#54aeff;margin-right:6px;vertical-align:middle}
            footer{margin-top:28px;color:#57606a;font-size:12px}.legend{font-size:12px;color:#57606a}
            .swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;vertical-align:middle}
            """;
}
