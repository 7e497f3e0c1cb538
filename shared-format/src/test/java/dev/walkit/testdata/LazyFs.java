package dev.walkit.testdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * LazyFS (the FUSE file system Jepsen uses, from {@code ../shared/tools/lazyfs/}) mounted for a test: every
 * byte not yet fsynced can be dropped on command, a power loss simulated. Files live in a backing directory
 * that outlives the mount; a fresh mount of it shows only what was made durable.
 *
 * <p>The binary: {@code WALKIT_LAZYFS}, else {@code ~/.cache/walkit/lazyfs/src/lazyfs/build/lazyfs}, where
 * {@code scripts/test} builds it when {@code /dev/fuse} exists.
 */
public final class LazyFs implements AutoCloseable {
    private final Path mnt;
    private final Path faults;
    private final Process process;
    private final FileChannel completed;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lazyfs-completed");
        t.setDaemon(true);
        return t;
    });

    private LazyFs(Path mnt, Path faults, Process process, FileChannel completed) {
        this.mnt = mnt;
        this.faults = faults;
        this.process = process;
        this.completed = completed;
    }

    public static Path binary() {
        String env = System.getenv("WALKIT_LAZYFS");
        if (env != null && !env.isEmpty()) return Path.of(env);
        return Path.of(System.getProperty("user.home"), ".cache", "walkit", "lazyfs", "src", "lazyfs", "build", "lazyfs");
    }

    /** Why LazyFS cannot be used here (a test skips with this line), or null. */
    public static String unavailable() {
        Path fuse = Path.of("/dev/fuse");
        if (!Files.exists(fuse)) return "no /dev/fuse on this machine: LazyFS (a FUSE file system) cannot mount";
        if (!Files.isReadable(fuse) || !Files.isWritable(fuse)) return "/dev/fuse is not open to this user: LazyFS cannot mount";
        if (!Files.isExecutable(binary())) {
            return "LazyFS is not built at " + binary() + " (scripts/test builds it when /dev/fuse exists; or set WALKIT_LAZYFS)";
        }
        if (!Files.isExecutable(Path.of("/usr/bin/fusermount3")) && !Files.isExecutable(Path.of("/bin/fusermount3"))) return "no fusermount3 (Debian: fuse3)";
        return null;
    }

    /**
     * Mounts LazyFS over {@code root} (the backing directory, kept between mounts) at {@code work/mnt}; its
     * config, FIFOs and log go in {@code work}. {@code cacheMiB} is its page cache, allocated at mount.
     */
    public static LazyFs mount(Path work, Path root, int cacheMiB) throws IOException, InterruptedException {
        Files.createDirectories(work);
        Files.createDirectories(root);
        Path mnt = Files.createDirectories(work.resolve("mnt"));
        Path faults = work.resolve("faults.fifo");
        Path completedFifo = work.resolve("completed.fifo");
        Path config = work.resolve("lazyfs.toml");
        Files.writeString(config, "[faults]\nfifo_path=\"" + faults + "\"\nfifo_path_completed=\"" + completedFifo + "\"\n"
                + "[cache]\napply_eviction=false\n[cache.simple]\ncustom_size=\"" + cacheMiB + "mb\"\nblocks_per_page=1\n"
                + "[filesystem]\nlog_all_operations=false\nlogfile=\"" + work.resolve("lazyfs.log") + "\"\n");
        Process p = new ProcessBuilder(binary().toString(), mnt.toString(), "--config-path", config.toString(), "-o", "allow_other",
                "-o", "modules=subdir", "-o", "subdir=" + root.toAbsolutePath(), "-f")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("lazyfs.out").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!mounted(mnt) || !Files.exists(completedFifo)) {
            if (!p.isAlive()) throw new IOException("lazyfs exited with " + p.exitValue() + " before mounting; see " + work.resolve("lazyfs.out"));
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("lazyfs did not mount " + mnt + " within 30 s");
            }
            Thread.sleep(20);
        }
        // A reader kept open (read-write: opening does not block): LazyFS's fault thread blocks opening it otherwise.
        FileChannel completed = FileChannel.open(completedFifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new LazyFs(mnt, faults, p, completed);
    }

    private static boolean mounted(Path mnt) throws IOException {
        String line = " " + mnt.toAbsolutePath() + " fuse.lazyfs ";
        return Files.readString(Path.of("/proc/mounts")).contains(line);
    }

    public Path mnt() {
        return mnt;
    }

    /** Sends one fault command (e.g. {@code lazyfs::crash::timing=after::op=fsync::from_rgx=...}). */
    public void command(String cmd) throws IOException {
        // LazyFS reads its FIFO 100 bytes at a time (MAX_READ_CHUNK): a longer command arrives as two unknown ones.
        if (cmd.length() + 1 > 100) throw new IllegalArgumentException("a LazyFS command of over 99 bytes: " + cmd);
        try (FileChannel ch = FileChannel.open(faults, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((cmd + "\n").getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /** Drops every byte not yet fsynced, now, and waits until LazyFS says it has. */
    public void clearCache() throws Exception {
        command("lazyfs::clear-cache");
        Future<String> f = reader.submit(() -> {
            StringBuilder s = new StringBuilder();
            ByteBuffer b = ByteBuffer.allocate(1);
            while (completed.read(b) > 0) {
                char c = (char) b.get(0);
                b.clear();
                if (c == '\n') break;
                s.append(c);
            }
            return s.toString();
        });
        String said = f.get(60, TimeUnit.SECONDS);
        if (!said.equals("finished::clear-cache")) throw new IOException("lazyfs said \"" + said + "\" to clear-cache");
    }

    /** True when LazyFS has stopped within {@code timeout} (a crash fault kills it). */
    public boolean awaitCrash(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Unmounts (lazily, as after a crash the mount is dead) and stops LazyFS; its cache, and all unsynced data, go. */
    @Override
    public void close() throws IOException {
        try {
            new ProcessBuilder("fusermount3", "-uz", mnt.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(30, TimeUnit.SECONDS);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            reader.shutdownNow();
            completed.close();
        }
    }
}
