package dev.walkit.recover;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writing a file so that a crash at any moment leaves either the old state or the complete new file:
 * write a temp file in the same directory, fsync it, rename it over the target, fsync the directory.
 */
final class AtomicOutput {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private AtomicOutput() {
    }

    /**
     * Temp files not yet published or removed: deleted if the JVM is stopped by a signal (Ctrl-C, a
     * runbook's timeout sending SIGTERM), which skips finally blocks; otherwise a partial output of up to
     * the input's size stayed behind in DIR. (SIGKILL cannot be caught: it can leave one.)
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
        }, "walrecover-temp-cleanup"));
    }

    /** A fresh temp path inside {@code dir} (hidden, never named like an output), removed if the JVM is stopped. */
    static Path tempIn(Path dir, String base) {
        Path p = dir.resolve("." + base + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        PENDING.add(p);
        return p;
    }

    /** Removes {@code temp} (if it is still there) and stops tracking it. */
    static void discard(Path temp) throws IOException {
        try {
            Files.deleteIfExists(temp);
        } finally {
            PENDING.remove(temp);
        }
    }

    static void fsync(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** fsync a directory, so that a rename in it is durable. */
    static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open directories for fsync; the rename stays atomic.
            if (!(e.getMessage() != null && e.getMessage().contains("Is a directory"))) throw e;
        }
    }

    /** Renames {@code temp} (already fsynced) over {@code target} atomically and fsyncs the directory. */
    static void publish(Path temp, Path target) throws IOException {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        PENDING.remove(temp);
        fsyncDir(target.toAbsolutePath().getParent());
    }

    /** Keeps an existing file as {@code NAME.broken.TIMESTAMP}; returns where it went. */
    static Path keepAsBroken(Path file, Instant now) throws IOException {
        Path kept = file.resolveSibling(file.getFileName() + ".broken." + TS.format(now));
        Files.move(file, kept, StandardCopyOption.ATOMIC_MOVE);
        fsyncDir(file.toAbsolutePath().getParent());
        return kept;
    }

    static void writeString(Path dir, String name, String content) throws IOException {
        Path tmp = tempIn(dir, name);
        try {
            Files.writeString(tmp, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            fsync(tmp);
            publish(tmp, dir.resolve(name));
        } finally {
            discard(tmp);
        }
    }
}
