package dev.walkit.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.testdata.KineDbGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code waldoctor diagnose -w html} on the damaged sample, an etcd db and a kine db: one self-contained page drawn
 * from the same diagnosis as the JSON (as many damage marks as the account has spans, its verdict and next commands,
 * the input's SHA-256), opened in a real headless browser (Debian's chromium; skipped, saying why, where there is
 * none), which renders it, takes a screenshot and requests nothing over the network.
 */
class DiagnosisHtmlTest {
    @TempDir
    Path dir;

    static final ObjectMapper JSON = new ObjectMapper();

    static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }

    static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    /** The page of {@code path} checked against diagnose's JSON of it; returns the page. */
    @Test
    void noHashLeavesTheSha256OutAndThePageSaysSo() throws Exception {
        Path sample = dev.walkit.format.Fixtures.path("sample/wal");
        WalDoctorTest.Run r = WalDoctorTest.run("diagnose", "-w", "html", "--no-hash", sample.toString());
        assertEquals(WalDoctorTest.run("diagnose", "-w", "json", sample.toString()).exit(), r.exit(), "the verdict's code, as -w json's: " + r.err());
        assertTrue(r.out().startsWith("<!DOCTYPE html>") || r.out().startsWith("<!doctype html>"), "a page");
        assertTrue(r.out().contains("<th>SHA-256</th><td><code>not computed (--no-hash)</code>"), "the page says it left the hash out");
        assertTrue(!r.out().contains(sha256(sample)), "no hash on the page");
        assertTrue(!java.util.regex.Pattern.compile("\\b[0-9a-f]{64}\\b").matcher(r.out()).find(), "no 64-hex digest anywhere");
    }

    static String page(Path path, Path file) throws Exception {
        WalDoctorTest.Run html = WalDoctorTest.run("diagnose", "-w", "html", path.toString());
        WalDoctorTest.Run json = WalDoctorTest.run("diagnose", "-w", "json", path.toString());
        assertEquals(json.exit(), html.exit(), html.err());
        JsonNode j = JSON.readTree(json.out());
        String page = html.out();
        assertTrue(page.startsWith("<!DOCTYPE html>") && page.strip().endsWith("</html>"), page.substring(0, 100));
        // Self-contained: no script, no link, no src or href, no url(...) — nothing to fetch.
        for (String bad : List.of("<script", "<link", "src=", "href=", "url(", "@import")) assertFalse(page.contains(bad), bad);
        assertEquals(j.get("damage").size(), count(page, "class=\"damage-mark\""), "a mark a damaged span");
        assertEquals(j.get("findings").size(), count(page, "class=\"finding-mark\""), "a mark a finding");
        assertEquals(j.get("store_damage").size(), count(page, "class=\"store-damage-mark\""));
        assertTrue(page.contains("(exit " + j.get("exit_code").asInt() + ")"), "the verdict");
        // The page is read elsewhere: its input and its next commands by absolute path, the input with the host's name.
        String abs = path.toAbsolutePath().normalize().toString();
        String given = path.toString();
        for (JsonNode n : j.get("next")) {
            String want = n.asText().replace(given, abs);
            if (path.getParent() != null) want = want.replace(path.getParent().toString(), path.toAbsolutePath().normalize().getParent().toString());
            assertTrue(page.contains(DiagnosisHtml.esc(want)), want);
        }
        assertTrue(page.contains(DiagnosisHtml.esc(WalDoctor.host() + ":" + abs)), "host:absolute path of the input");
        // Charts scale with the window: a viewBox, no fixed width; the body has margins.
        java.util.regex.Matcher svg = java.util.regex.Pattern.compile("<svg [^>]*>").matcher(page);
        int svgs = 0;
        while (svg.find()) {
            svgs++;
            assertTrue(svg.group().contains("width=\"100%\"") && svg.group().contains("viewBox=\""), svg.group());
        }
        assertTrue(svgs >= 1, "the page has charts");
        assertTrue(page.contains("padding:0 24px"), "margins");
        // No damage or finding drawn green (hues 75-165).
        java.util.regex.Matcher hsl = java.util.regex.Pattern.compile("hsl\\((\\d+),").matcher(page);
        while (hsl.find()) {
            int hue = Integer.parseInt(hsl.group(1));
            assertTrue(hue < 75 || hue > 165, "a green mark: hue " + hue);
        }
        // The damage table in the file's order.
        int table = page.indexOf("<h2>Damage and findings</h2>");
        if (table >= 0) {
            String t = page.substring(table, page.indexOf("</section>", table));
            java.util.regex.Matcher off = java.util.regex.Pattern.compile("<tr><td class=\"n\">([0-9,]+)</td>").matcher(t);
            long last = -1;
            while (off.find()) {
                long o = Long.parseLong(off.group(1).replace(",", ""));
                assertTrue(o >= last, "rows in offset order: " + o + " after " + last);
                last = o;
            }
        }
        assertTrue(page.contains(sha256(file)), "the input's SHA-256");
        assertTrue(page.contains(String.format(java.util.Locale.ROOT, "%,d bytes", Files.size(file))), "its size");
        assertTrue(page.contains("waldoctor "), "the tool's version");
        return page;
    }

    @Test
    void theDamagedSampleAnEtcdDbAndAKineDbAsPages() throws Exception {
        Path sample = Path.of("..", "testdata", "fixtures", "sample", "wal");
        String s = page(sample, sample);
        assertEquals(2, count(s, "class=\"damage-mark\""), "the sample's crc mismatch and torn tail");
        assertTrue(s.contains("data-kind=\"crc-mismatch\"") && s.contains("data-kind=\"torn-tail\""));
        assertTrue(s.contains("<polyline class=\"line\""), "the revisions over the file");
        Path etcd = Path.of("..", "testdata", "fixtures", "etcd", "snapshot.db");
        String e = page(etcd, etcd);
        assertTrue(e.contains("The store's own facts"), "an etcd db's own facts");
        Path kine = Files.createDirectories(dir.resolve("kine")).resolve("state.db");
        new KineDbGenerator(KineDbGenerator.Options.of(3, 500)).write(kine);
        page(kine, kine);
        browse(s, "sample", 2);
        browse(e, "etcd", 0);
    }

    @Test
    void reportWritesThePageBesideTheTextReport() throws Exception {
        Path sample = Path.of("..", "testdata", "fixtures", "sample", "wal");
        Path report = dir.resolve("report.html");
        WalDoctorTest.Run r = WalDoctorTest.run("diagnose", "--report", report.toString(), sample.toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.out().contains("== what this log is"), "the text report on stdout");
        String page = Files.readString(report);
        assertEquals(2, count(page, "class=\"damage-mark\""));
        try (var list = Files.list(dir)) {
            assertEquals(List.of(report), list.toList(), "no temporary file left");
        }
        WalDoctorTest.Run bad = WalDoctorTest.run("diagnose", "--report", dir.resolve("no/such/dir/r.html").toString(), sample.toString());
        assertEquals(2, bad.exit());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
    }

    static String chromium() {
        for (String c : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")) {
            if (Files.isExecutable(Path.of(c))) return c;
        }
        return null;
    }

    /**
     * Opens {@code page} in headless chromium: the DOM it renders has the marks, a screenshot is taken, and the
     * network log shows no request but the page's own file.
     */
    void browse(String page, String name, int marks) throws Exception {
        String chromium = chromium();
        assumeTrue(chromium != null, "no chromium here (scripts/test installs Debian's chromium): the page was checked without a browser");
        Path html = Files.writeString(dir.resolve(name + ".html"), page, StandardCharsets.UTF_8);
        Path png = dir.resolve(name + ".png");
        Path netLog = dir.resolve(name + ".netlog.json");
        List<String> common = List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--disable-sync", "--user-data-dir=" + dir.resolve("profile-" + name),
                // The browser's own queries (its network time) are not the page's; no name resolves, yet every URL asked for is logged.
                "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate", "--host-resolver-rules=MAP * ~NOTFOUND");
        List<String> dump = new ArrayList<>(common);
        dump.addAll(List.of("--log-net-log=" + netLog, "--dump-dom", html.toUri().toString()));
        String dom = exec(dump);
        assertEquals(marks, count(dom, "class=\"damage-mark\""), "the rendered page's marks");
        assertTrue(dom.contains("id=\"verdict\""), "the verdict rendered");
        List<String> shot = new ArrayList<>(common);
        shot.addAll(List.of("--window-size=1100,2600", "--screenshot=" + png, html.toUri().toString()));
        exec(shot);
        byte[] b = Files.readAllBytes(png);
        assertTrue(b.length > 10_000 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G', "a screenshot of " + b.length + " bytes");
        assertEquals(List.of(), pageRequests(netLog), "nothing the page asked the network for");
    }

    /**
     * The URLs the page asked for, from chromium's network log: requests with the page as their initiator (the
     * browser's own, its update and time queries, have "not an origin"). A page's file:// itself is not one.
     */
    static List<String> pageRequests(Path netLog) throws Exception {
        JsonNode log = JSON.readTree(netLog.toFile());
        int start = log.get("constants").get("logEventTypes").get("URL_REQUEST_START_JOB").asInt();
        List<String> out = new ArrayList<>();
        for (JsonNode e : log.get("events")) {
            JsonNode p = e.path("params");
            if (e.path("type").asInt() != start || p.path("initiator").asText().equals("not an origin")) continue;
            String url = p.path("url").asText();
            if (!url.isEmpty() && !url.startsWith("file:")) out.add(url);
        }
        return out;
    }

    @Test
    void theNetworkCheckSeesAPageThatFetches() throws Exception {
        String chromium = chromium();
        assumeTrue(chromium != null, "no chromium here (scripts/test installs Debian's chromium)");
        Path html = Files.writeString(dir.resolve("fetches.html"), "<!DOCTYPE html><html><body><img src=\"http://example.invalid/x.png\"></body></html>");
        Path netLog = dir.resolve("fetches.netlog.json");
        exec(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + dir.resolve("profile-fetches"),
                "--host-resolver-rules=MAP * ~NOTFOUND", "--log-net-log=" + netLog, "--dump-dom", html.toUri().toString()));
        assertEquals(List.of("http://example.invalid/x.png"), pageRequests(netLog));
    }

    private String exec(List<String> cmd) throws Exception {
        Path out = Files.createTempFile(dir, "chromium", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS), "chromium did not end");
        assertEquals(0, p.exitValue(), String.join(" ", cmd));
        return Files.readString(out);
    }
}
