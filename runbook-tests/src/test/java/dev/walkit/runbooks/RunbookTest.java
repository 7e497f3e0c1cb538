package dev.walkit.runbooks;

import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.Fixtures;
import dev.walkit.recover.WalRecover;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.testdata.EtcdCluster;
import dev.walkit.testdata.KineDbGenerator;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs every {@code $ } command of a runbook, in order, against a copy of a fixture as STORE, and
 * checks its exit code ({@code # exit N}) and that every output line the runbook shows was printed. The tools run
 * in-process; {@code etcdctl} is the real one; {@code waldoctor serve … &} runs as a process of its own (its start
 * line is its output, "exit 0" that it started) and is stopped with SIGTERM when the runbook ends.
 */
class RunbookTest {
    private static final Pattern EXIT = Pattern.compile("#\\s*exit\\s+(\\d+)\\s*$");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"power-loss.md, small-torn-tail", "crc-after-upgrade.md, small-crc-range-bug",
            "keys-vanished-after-compaction.md, small", "leases-missing.md, small", "kine-to-etcd.md, kine",
            "etcd-to-store.md, etcd-live", "inspect-kine.md, kine-only", "rollback-to-kine.md, small", "serve.md, sample",
            "watch-live-log.md, small", "etcd-will-not-start.md, etcd-metas-damaged", "k3s-database-malformed.md, kine-root-zeroed"})
    void everyCommandRunsAsShown(String runbook, String fixture) throws Exception {
        Path store = dir.resolve("STORE");
        Path kine = dir.resolve("KINE");
        EtcdCluster etcd = null;
        Path snapshot = dir.resolve("SNAPSHOT");
        if (fixture.equals("etcd-live")) {
            Files.copy(Fixtures.path("etcd/snapshot.db"), snapshot);
            etcd = EtcdCluster.start(dir.resolve("etcd"), 1); // the cluster's etcd, live, for the follow
            dev.walkit.testdata.Etcdctl.run(etcd.endpoints(), "\nput /registry/configmaps/default/a v1\nput /registry/pods/default/p1 spec1\n\n\n", "txn");
        } else if (fixture.equals("etcd")) {
            Files.copy(Fixtures.path("etcd/snapshot.db"), snapshot);
        } else if (fixture.equals("etcd-metas-damaged")) {
            // A power loss that tore both meta pages: one bit of each checksummed meta changed.
            byte[] b = Files.readAllBytes(Fixtures.path("etcd/snapshot.db"));
            b[64] ^= 1;
            b[4096 + 64] ^= 1;
            Files.write(snapshot, b);
        } else if (fixture.equals("kine-root-zeroed")) {
            Files.createDirectories(kine);
            Path db = kine.resolve("state.db");
            new KineDbGenerator(KineDbGenerator.Options.of(1, 3000)).write(db);
            dev.walkit.testdata.SqliteFile.zeroKineRoot(db);
        } else if (fixture.equals("kine-only")) {
            Files.createDirectories(kine);
            new KineDbGenerator(KineDbGenerator.Options.of(1, 3000)).write(kine.resolve("state.db"));
        } else if (fixture.equals("kine")) {
            Files.createDirectories(kine);
            new KineDbGenerator(KineDbGenerator.Options.of(1, 3000)).write(kine.resolve("state.db"));
            etcd = EtcdCluster.start(dir.resolve("etcd"), 1);
        } else if (fixture.equals("sample")) {
            Files.createDirectories(store);
            Files.copy(Fixtures.path("sample/wal"), store.resolve("wal"));
            etcd = EtcdCluster.start(dir.resolve("etcd"), 1);
        } else {
            Files.createDirectories(store);
            Files.copy(Fixtures.path("vectors/" + fixture + "/wal"), store.resolve("wal"));
        }
        String endpoint = etcd == null ? "ENDPOINT" : etcd.endpoints();
        try {
            run(runbook, store, kine, snapshot, endpoint);
        } finally {
            if (etcd != null) etcd.close();
        }
    }

    /** The address runbooks serve at; the test serves at a free port instead. */
    private static final String SERVE_ADDRESS = "127.0.0.1:23790";

    /** Commands a runbook runs in the background ({@code … &}): stopped with SIGTERM when it ends. */
    private final List<Process> background = new ArrayList<>();
    /** {@code walmigrate … --follow … &}: run in this JVM until the runbook's {@code wait}; its output and exit code. */
    private final List<java.util.concurrent.CompletableFuture<String[]>> jobs = new ArrayList<>();

    private void run(String runbook, Path store, Path kine, Path snapshot, String endpoint) throws Exception {
        try {
            runCommands(runbook, store, kine, snapshot, endpoint);
        } finally {
            for (Process p : background) {
                p.destroy();
                assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS), runbook + ": a background command did not stop on SIGTERM");
            }
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** {@code waldoctor serve … &}: a process of its own, until its start line (returned) is printed. */
    private String startInBackground(String[] args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), WalDoctor.class.getName()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(dir, "background", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        background.add(p);
        return dev.walkit.testdata.Await.until("the background command's start line (\" read-only at \")", () -> {
            String text = Files.readString(err);
            return text.contains(" read-only at ") || !p.isAlive() ? text : null;
        }, () -> dev.walkit.testdata.Await.read(err));
    }

    /** etcdctl, the real one: stdout and stderr, and its exit code in {@code code[0]}. */
    private static String etcdctl(String[] args, int[] code) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
        code[0] = p.exitValue();
        return out;
    }

    private void runCommands(String runbook, Path store, Path kine, Path snapshot, String endpoint) throws Exception {
        List<String> lines = Files.readAllLines(Fixtures.root().resolve("docs/runbooks/" + runbook));
        // A move into shards (--route): two more etcds, the main one and the events', when the runbook names them.
        if (lines.stream().anyMatch(l -> l.startsWith("$ ") && l.contains("ETCD_EVENTS"))) {
            try (EtcdCluster main = EtcdCluster.start(dir.resolve("etcd-main"), 1); EtcdCluster events = EtcdCluster.start(dir.resolve("etcd-events"), 1)) {
                runCommands(runbook, lines, store, kine, snapshot, endpoint, main.endpoints(), events.endpoints());
            }
            return;
        }
        runCommands(runbook, lines, store, kine, snapshot, endpoint, "ETCD_MAIN", "ETCD_EVENTS");
    }

    private void runCommands(String runbook, List<String> lines, Path store, Path kine, Path snapshot, String endpoint, String etcdMain,
                             String etcdEvents) throws Exception {
        String served = "127.0.0.1:" + freePort();
        Path cutover = dir.resolve("CUTOVER");
        int commands = 0;
        boolean inSh = false;
        String lastOut = null;
        String lastCmd = null;
        List<String> shown = new ArrayList<>();
        for (String line : lines) {
            if (lastOut != null && (line.startsWith("```") || line.startsWith("$ "))) {
                assertShownAsPrinted(runbook, lastCmd, shown, lastOut, WHOLE.contains(runbook));
                lastOut = null;
                shown.clear();
            }
            if (line.startsWith("```")) {
                inSh = line.equals("```sh") && !inSh;
                if (!line.equals("```sh")) inSh = false;
                continue;
            }
            if (!inSh) continue;
            if (line.startsWith("$ ")) {
                Matcher m = EXIT.matcher(line);
                assertTrue(m.find(), runbook + ": a command without '# exit N': " + line);
                int want = Integer.parseInt(m.group(1));
                String cmd = line.substring(2, m.start()).trim();
                boolean inBackground = cmd.endsWith("&");
                if (inBackground) cmd = cmd.substring(0, cmd.length() - 1).trim();
                String[] words = cmd.split("\\s+");
                String[] args = Arrays.stream(words).skip(1)
                        .map(w -> w.replace("STORE", store.toString()).replace("KINE", kine.toString()).replace("SNAPSHOT", snapshot.toString())
                                .replace("ETCD_MAIN", etcdMain).replace("ETCD_EVENTS", etcdEvents)
                                .replace("ENDPOINT", endpoint).replace(SERVE_ADDRESS, served).replace("CUTOVER", cutover.toString()))
                        .toArray(String[]::new);
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int[] code = {0};
                boolean job = inBackground && words[0].equals("walmigrate") || words[0].equals("touch") || words[0].equals("wait");
                if (inBackground && words[0].equals("walmigrate")) {
                    assertTrue(Arrays.asList(args).contains("--follow"), runbook + ": only a follow runs in the background: " + line);
                    StringWriter o = new StringWriter();
                    StringWriter e = new StringWriter();
                    java.util.concurrent.CompletableFuture<String[]> running = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        int c = Cli.run(new WalMigrate(), new PrintWriter(o), new PrintWriter(e), args);
                        return new String[] {Integer.toString(c), o.toString() + e};
                    });
                    jobs.add(running);
                    // Its copy done, following: the line it prints then.
                    dev.walkit.testdata.Await.printed(runbook + ": the background follow to begin", e, "walmigrate: following ", running);
                } else if (words[0].equals("touch")) {
                    Files.createFile(Path.of(args[0]));
                } else if (words[0].equals("wait")) {
                    assertTrue(!jobs.isEmpty(), runbook + ": wait without a background follow");
                    String[] r = jobs.remove(jobs.size() - 1).get(dev.walkit.testdata.Await.DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                    code[0] = Integer.parseInt(r[0]);
                    out.write(r[1]);
                } else if (inBackground) {
                    assertEquals("waldoctor", words[0], runbook + ": only waldoctor serve and a walmigrate follow run in the background: " + line);
                    out.write(startInBackground(args));
                    Process p = background.get(background.size() - 1);
                    code[0] = p.isAlive() ? 0 : p.exitValue();
                } else if (words[0].equals("etcdctl")) {
                    out.write(etcdctl(args, code));
                }
                int got = job || inBackground || words[0].equals("etcdctl") ? code[0] : switch (words[0]) {
                    case "walverify" -> Cli.run(new WalVerify(), new PrintWriter(out), new PrintWriter(err), args);
                    case "walrecover" -> Cli.run(new WalRecover(), new PrintWriter(out), new PrintWriter(err), args);
                    case "waldoctor" -> WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args);
                    case "walmigrate" -> Cli.run(new WalMigrate(), new PrintWriter(out), new PrintWriter(err), args);
                    default -> throw new AssertionError(runbook + ": unknown tool in " + line);
                };
                assertEquals(want, got, runbook + ": " + cmd + "\n" + out + err);
                lastCmd = cmd;
                lastOut = out.toString().replace(store.toString(), "STORE").replace(kine.toString(), "KINE").replace(snapshot.toString(), "SNAPSHOT")
                        .replace(etcdMain, "ETCD_MAIN").replace(etcdEvents, "ETCD_EVENTS")
                        .replace(endpoint, "ENDPOINT").replace(served, SERVE_ADDRESS).replace(cutover.toString(), "CUTOVER");
                commands++;
            } else if (lastOut != null) {
                shown.add(line);
            }
        }
        assertTrue(commands >= 2, runbook + ": only " + commands + " command(s)");
        assertTrue(lastOut == null, runbook + ": a code block left open");
        assertTrue(new ArrayList<>(lines).size() > 0);
    }

    /** Runbooks that show every line their commands print (the others show the lines that matter, in the order printed). */
    static final java.util.Set<String> WHOLE = java.util.Set.of("power-loss.md");

    /**
     * The lines a runbook shows under a command were printed by it, in that order, each whole ("…" in a line standing for
     * what varies: timings, digests, a path); with {@code whole}, every printed line is shown ("…" alone on a line stands
     * for any number of them).
     */
    static void assertShownAsPrinted(String runbook, String cmd, List<String> shown, String printed, boolean whole) {
        List<String> want = new ArrayList<>(shown);
        want.removeIf(String::isBlank);
        List<String> got = printed.lines().map(String::stripTrailing).filter(l -> !l.isBlank()).toList();
        assertTrue(matches(want, 0, got, 0, whole), runbook + ": what the runbook shows under `" + cmd + "` is not what it printed"
                + (whole ? " (every line)" : " (each line whole, in order)") + ":\n--- shown:\n" + String.join("\n", want) + "\n--- printed:\n" + String.join("\n", got));
    }

    private static boolean matches(List<String> want, int w, List<String> got, int g, boolean whole) {
        if (w == want.size()) return !whole || g == got.size();
        String line = want.get(w).stripTrailing();
        if (line.strip().equals("…") || !whole) {
            boolean gap = line.strip().equals("…");
            for (int skip = g; skip <= got.size(); skip++) {
                if (gap ? matches(want, w + 1, got, skip, whole) : skip < got.size() && one(line, got.get(skip)) && matches(want, w + 1, got, skip + 1, whole)) return true;
            }
            return false;
        }
        if (g == got.size()) return false;
        return one(line, got.get(g)) && matches(want, w + 1, got, g + 1, whole);
    }

    /** Whether the shown {@code line} is the printed one, "…" standing for anything. */
    private static boolean one(String line, String printed) {
        StringBuilder re = new StringBuilder();
        String[] parts = line.strip().split("…", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) re.append(".*");
            re.append(java.util.regex.Pattern.quote(parts[i]));
        }
        return printed.strip().matches(re.toString().replace("\\Q\\E", ""));
    }
}
