package dev.walkit.testdata;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * A tool that publishes files into an output directory, run as a real process with DIR on a {@link LazyFs}
 * mount and a power loss (or a crash of the file system) at a chosen moment. After each fault, through a fresh
 * mount: DIR holds nothing, the old files or the new ones (the last of {@link Tool#files}, the commit name,
 * never beside a file of the other generation); no old file is lost; and the next run cleans up and writes
 * files equal (SHA-256) to an undisturbed run's.
 */
public final class PowerLoss implements AutoCloseable {
    /**
     * @param command the tool's command line, given DIR and whether to replace what is there (--force)
     * @param files   the names it publishes, the commit name last
     * @param replaces whether it can replace an earlier output (walrecover --force; walmigrate --out-wal never does)
     */
    public record Tool(BiFunction<Path, Boolean, List<String>> command, List<String> files, boolean replaces) {
    }

    /** The SHA-256 of each published file of one run. */
    public record Generation(Map<String, String> sha256) {
        public static Generation of(Path dir, List<String> files) throws IOException {
            Map<String, String> m = new LinkedHashMap<>();
            for (String f : files) m.put(f, PowerLoss.sha256(dir.resolve(f)));
            return new Generation(m);
        }
    }

    /** What happens while the tool runs. */
    public sealed interface Fault {
        /** SIGKILL the tool after {@code millis}, then drop every unsynced byte: a power loss. */
        record PowerCut(long millis) implements Fault {
        }

        /** LazyFS kills itself (its unsynced data gone) right after the first matching call: {@code lazyfs::crash::...}. */
        record CrashAfter(String op, String fromRegex, String toRegex) implements Fault {
        }

        /** The next write to the temp file whose name starts with {@code prefix} (once it holds {@code after} bytes) is torn: only its second half reaches the disk. */
        record TornWrite(String prefix, long after) implements Fault {
        }
    }

    private final Path work;
    private final Tool tool;
    private final Generation fresh;
    private final Path oldDir;
    private final Generation old;
    private final int cacheMiB;
    /** The backing directories: under a short path, as LazyFS reads a fault command in chunks of 100 bytes and a torn write names its file. */
    private final Path shortRoot;
    private int round;

    /**
     * @param fresh  what an undisturbed run writes
     * @param oldDir a directory with an earlier output (another generation), copied into DIR for the runs over
     *               one; null for a tool that never replaces one
     */
    public PowerLoss(Path work, Tool tool, Generation fresh, Path oldDir, int cacheMiB) throws IOException {
        this.work = work;
        this.tool = tool;
        this.fresh = fresh;
        this.oldDir = oldDir;
        this.old = oldDir == null ? null : Generation.of(oldDir, tool.files());
        for (String f : tool.files()) {
            if (old != null && old.sha256().get(f).equals(fresh.sha256().get(f))) throw new IllegalArgumentException("the old " + f + " equals the new one: no test");
        }
        this.cacheMiB = cacheMiB;
        Path r = Path.of("/tmp", "lz" + ProcessHandle.current().pid());
        for (int n = 1; Files.exists(r); n++) r = Path.of("/tmp", "lz" + ProcessHandle.current().pid() + "-" + n);
        this.shortRoot = Files.createDirectories(r);
    }

    @Override
    public void close() throws IOException {
        deleteTree(shortRoot);
    }

    /** What one round found, for the test's own counts. */
    public record Round(String state, int exitOfFaultedRun, boolean fsCrashed) {
    }

    /** One run under {@code fault}, into a fresh DIR or (overOld) over an earlier output; asserts what is said above. */
    public Round run(Fault fault, boolean overOld) throws Exception {
        String label = fault + (overOld ? " over an old output" : " into a fresh DIR");
        Path backing = shortRoot.resolve("r" + (++round));
        Path dirInBacking = backing.resolve("out");
        if (overOld) {
            Files.createDirectories(dirInBacking);
            for (String f : tool.files()) Files.copy(oldDir.resolve(f), dirInBacking.resolve(f));
        }
        Path mwork = work.resolve("lz" + round);
        int exit;
        boolean crashed;
        try (LazyFs lz = LazyFs.mount(mwork, backing, cacheMiB)) {
            Path dir = lz.mnt().resolve("out");
            if (fault instanceof Fault.CrashAfter c) {
                lz.command("lazyfs::crash::timing=after::op=" + c.op() + "::from_rgx=" + c.fromRegex() + (c.toRegex() == null ? "" : "::to_rgx=" + c.toRegex()));
            }
            Process p = start(dir, overOld, mwork.resolve("faulted.out"));
            if (fault instanceof Fault.PowerCut cut) {
                if (!p.waitFor(cut.millis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    p.waitFor();
                }
                lz.clearCache();
            } else if (fault instanceof Fault.CrashAfter) {
                if (!lz.awaitCrash(Duration.ofSeconds(120))) throw new AssertionError(label + ": the fault never fired");
                p.destroyForcibly();
                p.waitFor();
            } else if (fault instanceof Fault.TornWrite t) {
                // Sizes through the mount (LazyFS holds unsynced data in its cache); the fault names the backing path.
                Path temp = awaitTemp(dir, t.prefix(), t.after(), p, label);
                lz.command("lazyfs::torn-op::file=" + dirInBacking.resolve(temp.getFileName()) + "::parts=2::persist=2");
                // The next write to it is torn; the tool may have written its last byte before the fault was armed.
                while (!lz.awaitCrash(Duration.ofMillis(100))) {
                    if (!p.isAlive() && !lz.awaitCrash(Duration.ofSeconds(2))) {
                        throw new AssertionError(label + ": the tool finished (exit " + p.exitValue() + ") before the torn write ("
                                + temp + "); lazyfs said: " + tail(mwork.resolve("lazyfs.out")));
                    }
                }
                p.destroyForcibly();
                p.waitFor();
            }
            exit = p.exitValue();
            crashed = !lz.alive();
        }
        String state;
        try (LazyFs lz = LazyFs.mount(work.resolve("lz" + round + "-after"), backing, cacheMiB)) {
            Path dir = lz.mnt().resolve("out");
            state = check(dir, overOld, label);
            // A run that finished (its switch done) before the cut is replaced only when asked, as a runbook would
            // (--force); a tool that never replaces its output has nothing more to do then, unless the cut came
            // between its last rename and the intent file's removal: its next run into DIR must put that right.
            boolean ran = tool.replaces() || !state.equals("new") || Files.exists(dir.resolve(".walkit.switch"));
            if (ran) {
                Process again = start(dir, overOld || state.equals("new"), mwork.resolve("again.out"));
                if (!again.waitFor(300, TimeUnit.SECONDS)) throw new AssertionError(label + ": the next run did not finish");
                if (again.exitValue() != 0) {
                    throw new AssertionError(label + ": the next run exited " + again.exitValue() + ": " + Files.readString(mwork.resolve("again.out")));
                }
            }
            assertAfterNextRun(dir, overOld, ran, label);
        }
        deleteTree(backing);
        return new Round(state, exit, crashed);
    }

    private Process start(Path dir, boolean force, Path log) throws IOException {
        Files.createDirectories(log.getParent());
        return new ProcessBuilder(tool.command().apply(dir, force)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
    }

    private static Path awaitTemp(Path dir, String prefix, long after, Process p, String label) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline && p.isAlive()) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) s::iterator) {
                        if (f.getFileName().toString().startsWith(prefix) && Files.size(f) >= after) return f;
                    }
                } catch (java.nio.file.NoSuchFileException e) {
                    // a temp file gone between list and size
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError(label + ": no temp file " + prefix + "* of " + after + " bytes appeared");
    }

    /** The state a fault left, checked; returns it in a word: nothing, old, new, or switching (no commit name, the intent file there). */
    private String check(Path dir, boolean overOld, String label) throws IOException {
        Map<String, String> shaByName = shas(dir);
        String commit = tool.files().get(tool.files().size() - 1);
        List<String> visible = shaByName.keySet().stream().filter(n -> !n.startsWith(".")).toList();
        for (String n : visible) {
            boolean ours = tool.files().stream().anyMatch(f -> n.equals(f) || n.startsWith(f + ".broken."));
            if (!ours) throw new AssertionError(label + ": an unexpected file " + n + " in DIR: " + shaByName.keySet());
        }
        if (overOld) {
            for (String f : tool.files()) {
                if (!shaByName.containsValue(old.sha256().get(f))) throw new AssertionError(label + ": the old " + f + " is lost: " + shaByName);
            }
        }
        String state;
        if (shaByName.containsKey(commit)) {
            Generation g = shaByName.get(commit).equals(fresh.sha256().get(commit)) ? fresh
                    : overOld && shaByName.get(commit).equals(old.sha256().get(commit)) ? old : null;
            if (g == null) throw new AssertionError(label + ": " + commit + " is neither the old one nor an undisturbed run's: " + shaByName);
            for (String f : tool.files()) {
                if (!g.sha256().get(f).equals(shaByName.get(f))) {
                    throw new AssertionError(label + ": " + commit + " of one run beside " + f + " of another: " + shaByName);
                }
            }
            state = g == fresh ? "new" : "old";
        } else if (shaByName.containsKey(".walkit.switch")) {
            state = "switching";
        } else {
            for (String f : tool.files()) {
                if (shaByName.containsKey(f)) throw new AssertionError(label + ": " + f + " without " + commit + " and no switch under way: " + shaByName);
            }
            if (overOld) throw new AssertionError(label + ": the old output is gone from its names, and no switch under way: " + shaByName);
            state = "nothing";
        }
        return state;
    }

    private void assertAfterNextRun(Path dir, boolean overOld, boolean ran, String label) throws IOException {
        Map<String, String> shaByName = shas(dir);
        for (String f : tool.files()) {
            if (!fresh.sha256().get(f).equals(shaByName.get(f))) throw new AssertionError(label + ", then a next run: " + f + " is not an undisturbed run's: " + shaByName);
        }
        // Without a next run, the lock file of the process the fault killed may stay (the next run into DIR removes it).
        List<String> dots = shaByName.keySet().stream().filter(n -> n.startsWith(".") && (ran || !n.equals(".walkit.lock"))).toList();
        if (!dots.isEmpty()) throw new AssertionError(label + ", then a next run: left " + dots);
        if (overOld) {
            for (String f : tool.files()) {
                if (!shaByName.containsValue(old.sha256().get(f))) throw new AssertionError(label + ", then a next run: the old " + f + " is lost: " + shaByName);
            }
        }
    }

    private static Map<String, String> shas(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        if (!Files.isDirectory(dir)) return m;
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(files::add);
        }
        for (Path f : files) m.put(f.getFileName().toString(), sha256(f));
        return m;
    }

    private static String tail(Path log) throws IOException {
        List<String> l = Files.readAllLines(log);
        return String.join("\n", l.subList(Math.max(0, l.size() - 12), l.size()));
    }

    public static String sha256(Path f) throws IOException {
        try (InputStream in = Files.newInputStream(f)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(q);
        }
    }
}
