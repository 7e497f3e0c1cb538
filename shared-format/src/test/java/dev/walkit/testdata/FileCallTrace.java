package dev.walkit.testdata;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tool's file calls as {@code strace -f -y} records them (mkdir, rename, unlink, write, fsync, with each
 * descriptor's path), to check what LazyFS cannot: that data is fsynced before its rename and the directory
 * after it. (LazyFS simulates lost data, not a lost rename or directory entry.)
 */
public final class FileCallTrace {
    /** One call: the line it started on and the line it returned on (they differ when another thread's call came between). */
    public record Call(int start, int end, int tid, String name, String args, String result) {
        /** The path of the descriptor in the first argument, as {@code -y} prints it ({@code 14</dir/file>}). */
        String fdPath() {
            Matcher m = FD.matcher(args);
            return m.lookingAt() ? m.group(1) : null;
        }

        /** The path of the descriptor written to: the first argument's, or copy_file_range's third. */
        String writtenPath() {
            if (!name.equals("copy_file_range")) return fdPath();
            Matcher m = FD.matcher(args);
            for (int i = 0; m.find(); i++) {
                if (i == 1) return m.group(1);
            }
            return null;
        }

        boolean writes() {
            return WRITES.contains(name);
        }

        /** The quoted paths in the arguments. */
        List<String> paths() {
            List<String> l = new ArrayList<>();
            Matcher m = QUOTED.matcher(args);
            while (m.find()) l.add(m.group(1));
            return l;
        }

        boolean ok() {
            return result.startsWith("0") || result.matches("\\d+.*");
        }
    }

    private static final Pattern FD = Pattern.compile("\\d+<([^>]*)>");
    private static final java.util.Set<String> WRITES = java.util.Set.of("write", "pwrite64", "writev", "pwritev", "pwritev2", "copy_file_range", "sendfile");
    /** The *at and newer forms under the name of the plain call. */
    private static final Map<String, String> PLAIN = Map.of("renameat", "rename", "renameat2", "rename", "unlinkat", "unlink", "mkdirat", "mkdir");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");
    private static final Pattern LINE = Pattern.compile("(\\d+) +(\\w+)\\((.*)\\) += (.*)");
    private static final Pattern UNFINISHED = Pattern.compile("(\\d+) +(\\w+)\\((.*) <unfinished \\.\\.\\.>");
    private static final Pattern RESUMED = Pattern.compile("(\\d+) +<\\.\\.\\. (\\w+) resumed>(.*)\\) += (.*)");

    private final List<Call> calls;

    private FileCallTrace(List<Call> calls) {
        this.calls = calls;
    }

    /** Why strace cannot be used here, or null. */
    public static String unavailable() {
        for (String d : List.of("/usr/bin/strace", "/bin/strace")) {
            if (Files.isExecutable(Path.of(d))) return null;
        }
        return "no strace (Debian: strace; scripts/test installs it)";
    }

    /** Runs {@code command} under strace; returns its calls (the command must exit 0). */
    public static FileCallTrace run(List<String> command, Path log) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("strace", "-f", "-y", "-qq", "-s", "0", "-e", "trace=%file,write,pwrite64,writev,pwritev,pwritev2,copy_file_range,sendfile,fsync,fdatasync", "-o", log.toString()));
        c.addAll(command);
        Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) throw new AssertionError("strace " + command + " failed: " + (p.isAlive() ? "timeout" : p.exitValue()));
        return parse(Files.readAllLines(log));
    }

    static FileCallTrace parse(List<String> lines) {
        List<Call> calls = new ArrayList<>();
        Map<Integer, Object[]> open = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                calls.add(new Call(i, i, Integer.parseInt(m.group(1)), PLAIN.getOrDefault(m.group(2), m.group(2)), m.group(3), m.group(4)));
                continue;
            }
            m = UNFINISHED.matcher(l);
            if (m.matches()) {
                open.put(Integer.parseInt(m.group(1)), new Object[] {i, PLAIN.getOrDefault(m.group(2), m.group(2)), m.group(3)});
                continue;
            }
            m = RESUMED.matcher(l);
            if (m.matches()) {
                Object[] o = open.remove(Integer.parseInt(m.group(1)));
                if (o != null) calls.add(new Call((Integer) o[0], i, Integer.parseInt(m.group(1)), (String) o[1], o[2] + m.group(3), m.group(4)));
            }
        }
        calls.sort(java.util.Comparator.comparingInt(Call::start));
        return new FileCallTrace(calls);
    }

    public List<Call> calls() {
        return calls;
    }

    /**
     * Asserts that every file renamed into {@code dir} was fsynced after its last write and before the rename,
     * that {@code dir} was fsynced after each rename (and unlink) in it before the next one, that a
     * {@code dir} made by mkdir was made durable by an fsync of its parent before anything was renamed into it,
     * and that the names were renamed into place in the order given. Returns the number of renames checked.
     */
    public int assertDurablePublish(Path dir, List<String> inOrder) {
        String d = dir.toAbsolutePath().toString();
        List<Call> renames = calls.stream().filter(c -> c.name().equals("rename") && c.ok() && parent(c.paths().get(1)).equals(d)).toList();
        if (renames.isEmpty()) throw new AssertionError("no rename into " + d);
        for (Call r : renames) {
            String from = r.paths().get(0);
            int lastWrite = last(c -> c.writes() && from.equals(c.writtenPath()) && c.start() < r.start(), Call::end);
            Call sync = first(c -> (c.name().equals("fsync") || c.name().equals("fdatasync")) && from.equals(c.fdPath()) && c.start() > lastWrite && c.end() < r.start());
            if (lastWrite < 0) continue; // not written by this run (an old file moved aside): no data of its own to sync
            if (sync == null) throw new AssertionError(from + ": renamed to " + r.paths().get(1) + " (line " + r.start() + ") without an fsync after its last write (line " + lastWrite + ")");
        }
        // Renames, and unlinks of what is not a temp file or the lock file (the intent file's removal ends a switch).
        List<Call> dirChanges = calls.stream().filter(c -> c.ok() && !c.paths().isEmpty() && parent(c.paths().get(c.paths().size() - 1)).equals(d)
                && (c.name().equals("rename") || c.name().equals("unlink") && !c.paths().get(0).endsWith("/.walkit.lock")
                        && !c.paths().get(0).contains(".tmp-"))).toList();
        for (int i = 0; i < dirChanges.size(); i++) {
            Call ch = dirChanges.get(i);
            int next = i + 1 < dirChanges.size() ? dirChanges.get(i + 1).start() : Integer.MAX_VALUE;
            Call sync = first(c -> c.name().equals("fsync") && d.equals(c.fdPath()) && c.start() > ch.end() && c.end() < next);
            if (sync == null) throw new AssertionError(d + ": no fsync of the directory after " + ch.name() + "(" + ch.args() + ") (line " + ch.start() + ") before the next change");
        }
        Call mkdir = first(c -> c.name().equals("mkdir") && c.result().startsWith("0") && c.paths().get(0).equals(d));
        if (mkdir != null) {
            Call sync = first(c -> c.name().equals("fsync") && parent(d).equals(c.fdPath()) && c.start() > mkdir.end() && c.end() < renames.get(0).start());
            if (sync == null) throw new AssertionError(d + ": made by mkdir (line " + mkdir.start() + ") but its parent was not fsynced before the first rename into it");
        }
        List<String> order = renames.stream().map(r -> Path.of(r.paths().get(1)).getFileName().toString()).filter(inOrder::contains).toList();
        if (!order.equals(inOrder)) throw new AssertionError(d + ": renamed into place in the order " + order + ", not " + inOrder);
        return renames.size();
    }

    private static String parent(String p) {
        Path q = Path.of(p).getParent();
        return q == null ? "" : q.toString();
    }

    private Call first(java.util.function.Predicate<Call> p) {
        return calls.stream().filter(p).findFirst().orElse(null);
    }

    private int last(java.util.function.Predicate<Call> p, java.util.function.ToIntFunction<Call> f) {
        return calls.stream().filter(p).mapToInt(f).max().orElse(-1);
    }
}
