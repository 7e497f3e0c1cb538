package dev.walkit.format.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An output directory a tool writes its files into (walrecover's {@code wal} and {@code leases.json},
 * walmigrate's {@code --out-wal}): made if missing, held under a {@linkplain DirLock lock}, cleaned of what an
 * earlier run left when it crashed, written through temp files, and {@linkplain PairSwitch published as one
 * switch}. Closing it removes whatever was not published, the lock file, and DIR itself when this run made it
 * and published nothing: a refused or failed run leaves the file system as it found it.
 */
public final class OutputDir implements AutoCloseable {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /**
     * The temp files of a run: {@code .NAME.tmp-PID-NANOS} (System.nanoTime may be negative), and SQLite's own files
     * beside a temp database ({@code -journal}, {@code -wal}, {@code -shm}: --out-kine writes one).
     */
    private static final Pattern TEMP = Pattern.compile("\\.(.+)\\.tmp-\\d+--?\\d+(-journal|-wal|-shm)?");

    /**
     * Temp files not yet published or removed: deleted if the JVM is stopped by a signal (Ctrl-C, a runbook's
     * timeout sending SIGTERM), which skips finally blocks. SIGKILL or a power loss can leave them; the next
     * run removes them ({@link #cleanedUp}).
     */
    private static final Set<Path> PENDING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Path p : PENDING) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // exiting: nothing more to do
                }
            }
        }, "walkit-temp-cleanup"));
    }

    /** Another process holds DIR's lock. */
    public static final class Busy extends Exception {
        private static final long serialVersionUID = 1L;
        private final String holder;

        Busy(String holder) {
            super("held by pid " + holder);
            this.holder = holder;
        }

        /** What the holder wrote into the lock file: its pid. */
        public String holder() {
            return holder;
        }
    }

    private final Path dir;
    private final List<Path> created;
    private final DirLock lock;
    private final List<String> cleanedUp = new ArrayList<>();
    private final List<Path> temps = new ArrayList<>();
    private boolean published;
    /** {@link #finishOnSignal}: temp files left out of the shutdown hook's clean-up. */
    private boolean finishOnSignal;

    private OutputDir(Path dir, List<Path> created, DirLock lock) {
        this.dir = dir;
        this.created = created;
        this.lock = lock;
    }

    /**
     * Makes {@code dir} (and its missing parents) if needed and takes its lock; then, under it, undoes an
     * unfinished switch and removes the temp files of earlier runs ({@link #cleanedUp} says what was done).
     */
    public static OutputDir open(Path dir) throws IOException, Busy {
        Path d = dir.toAbsolutePath().normalize();
        List<Path> created = new ArrayList<>();
        for (Path p = d; p != null && !Files.exists(p); p = p.getParent()) created.add(0, p);
        Files.createDirectories(d);
        // A directory's entry is durable once its parent is fsynced: without it, a power loss could lose DIR itself.
        for (Path p : created) Durable.fsyncDir(p.getParent());
        OutputDir out = null;
        try {
            String[] holder = new String[1];
            DirLock lock = DirLock.tryAcquire(d, holder);
            if (lock == null) throw new Busy(holder[0]);
            out = new OutputDir(d, created, lock);
            String undone = PairSwitch.recover(d);
            if (undone != null) out.cleanedUp.add(undone);
            out.removeLeftovers();
            return out;
        } catch (IOException | Busy | RuntimeException e) {
            if (out != null) out.close();
            else removeCreated(created);
            throw e;
        }
    }

    /**
     * True when {@link #open} finished an earlier run's switch whose every rename was made: the names in DIR are then
     * that run's complete output, written by a walkit tool, not the operator's files; the run may replace them (the
     * old ones kept as {@code NAME.broken.*}, as always) without --force, as the same command run again.
     */
    public boolean finishedEarlierSwitch() {
        return cleanedUp.stream().anyMatch(l -> l.startsWith(PairSwitch.FINISHED));
    }

    /**
     * Removes the lock file a killed run left in {@code dir} (nobody holds its lock), for a run that refuses DIR without
     * taking the lock: a refused rerun leaves no {@code .walkit.lock} behind. A lock another run holds is left to it.
     */
    public static void removeStaleLock(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir.resolve(DirLock.FILE))) return;
        DirLock l = DirLock.tryAcquire(dir.toAbsolutePath().normalize(), new String[1]);
        if (l != null) l.close(); // releasing the lock removes the file
    }

    /** True when {@code dir} holds a switch a crashed run did not finish: {@link #open} undoes it (so DIR is judged after). */
    public static boolean unfinishedSwitch(Path dir) {
        return PairSwitch.unfinished(dir);
    }

    public Path dir() {
        return dir;
    }

    /** What this run found and put right before it wrote anything: an earlier run's undone switch, its temp files removed. */
    public List<String> cleanedUp() {
        return List.copyOf(cleanedUp);
    }

    /** A fresh temp path for what will be published as {@code name}: hidden, never named like an output, removed unless published. */
    public Path temp(String name) {
        Path p = dir.resolve("." + name + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        if (!finishOnSignal) PENDING.add(p);
        temps.add(p);
        return p;
    }

    /**
     * A signal ends this run by finishing it (a follow's cut-over: the run itself publishes or discards its temp
     * files before the process exits), so they are not deleted when the signal comes; a run killed before it finishes
     * leaves them to the next run's clean-up ({@link #cleanedUp}).
     */
    public void finishOnSignal() {
        finishOnSignal = true;
        PENDING.removeAll(temps);
    }

    /** Removes {@code temp} now (a form given up part-way). */
    public void discard(Path temp) throws IOException {
        try {
            Files.deleteIfExists(temp);
        } finally {
            PENDING.remove(temp);
            temps.remove(temp);
        }
    }

    /** Told each durable step of a publish ({@link PairSwitch#run}); nothing but in the tests that crash it there. */
    private java.util.function.IntConsumer afterStep = step -> {
    };

    /** For tests: {@code hook} is told each durable step of this directory's publish (1 = the intent file); it may stop the run there. */
    void afterEachStep(java.util.function.IntConsumer hook) {
        this.afterStep = hook;
    }

    /**
     * Puts each temp file (written and fsynced by the caller) in place under its name, in the map's order, the
     * last name being the commit name ({@link PairSwitch}); old files of those names are kept as
     * {@code NAME.broken.TIMESTAMP}. Returns that suffix when an old file was kept, else null.
     */
    public String publish(Map<String, Path> files, Instant now) throws IOException {
        String suffix = ".broken." + TS.format(now);
        for (int n = 1; anyExists(files, suffix); n++) suffix = ".broken." + TS.format(now) + "-" + n;
        List<PairSwitch.Entry> entries = new ArrayList<>();
        boolean anyOld = false;
        for (Map.Entry<String, Path> f : files.entrySet()) {
            if (!f.getValue().getParent().equals(dir)) throw new IllegalArgumentException(f.getValue() + " is not a temp file of " + dir);
            boolean old = Files.exists(dir.resolve(f.getKey()));
            anyOld |= old;
            entries.add(new PairSwitch.Entry(f.getKey(), f.getValue().getFileName().toString(), old));
        }
        PairSwitch.run(dir, entries, suffix, afterStep);
        for (Path p : files.values()) {
            PENDING.remove(p);
            temps.remove(p);
        }
        published = true;
        return anyOld ? suffix : null;
    }

    private boolean anyExists(Map<String, Path> files, String suffix) {
        return files.keySet().stream().anyMatch(n -> Files.exists(dir.resolve(n + suffix)));
    }

    private void removeLeftovers() throws IOException {
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (!TEMP.matcher(p.getFileName().toString()).matches() || !Files.isRegularFile(p)) continue;
                long size = Files.size(p);
                Files.delete(p);
                cleanedUp.add("removed " + p.getFileName() + " (" + size + " bytes): a temp file of an earlier run that did not finish");
            }
        }
    }

    /** For tests: stop as a killed process would, leaving every file where it is (the OS releases the lock). */
    void crashed() throws IOException {
        PENDING.removeAll(temps);
        temps.clear();
        lock.drop();
    }

    /** Removes what was not published, then the lock file; and DIR, when this run made it and published nothing. */
    @Override
    public void close() throws IOException {
        try {
            for (Path p : List.copyOf(temps)) discard(p);
        } finally {
            lock.close();
            if (!published) removeCreated(created);
        }
    }

    /** Removes the directories this run made, deepest first, while they are empty (another run's files keep them). */
    private static void removeCreated(List<Path> created) {
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                Files.delete(created.get(i));
            } catch (IOException e) {
                return;
            }
        }
    }
}
