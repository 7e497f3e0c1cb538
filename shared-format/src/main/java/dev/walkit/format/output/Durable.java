package dev.walkit.format.output;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** The three calls an output is made durable with: fsync a file, fsync a directory, rename and fsync its directory. */
public final class Durable {
    private Durable() {
    }

    public static void fsync(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** fsync a directory, so that a create, rename or unlink in it is durable. */
    public static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open directories for fsync; the rename stays atomic.
            if (!(e.getMessage() != null && e.getMessage().contains("Is a directory"))) throw e;
        }
    }

    /** rename(2) {@code from} over {@code to} (same directory), then fsync the directory: the step is durable before the next. */
    public static void rename(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        fsyncDir(to.toAbsolutePath().getParent());
    }

    /** unlink(2) {@code file} if it is there, then fsync its directory; true if it was there. */
    public static boolean delete(Path file) throws IOException {
        boolean was = Files.deleteIfExists(file);
        if (was) fsyncDir(file.toAbsolutePath().getParent());
        return was;
    }
}
