package dev.walkit.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * One line for an I/O failure, as an operator reads it: the file and why. {@code java.nio.file}'s
 * exceptions often carry the file alone as their message ({@code NoSuchFileException: /data/wal}),
 * which says nothing of what went wrong; their type says it.
 */
public final class IoErrors {
    private IoErrors() {
    }

    public static String describe(Throwable t) {
        Throwable e = t instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : t;
        if (e instanceof FileSystemException f) {
            String file = f.getFile() == null ? "" : f.getFile();
            if (f.getOtherFile() != null) file += " -> " + f.getOtherFile();
            String reason = f.getReason() != null ? f.getReason() : reasonOf(f);
            if (file.isEmpty()) return reason;
            return file + ": " + reason;
        }
        if (e.getMessage() != null && !e.getMessage().isBlank()) return e.getMessage();
        return e instanceof IOException ? "I/O error (" + e.getClass().getSimpleName() + ")" : e.toString();
    }

    /**
     * An I/O failure ({@link #describe}d) in words when it may have happened writing into {@code out} (a full disk
     * mid-write): the output's own name in place of its hidden temp file's ({@code DIR/.NAME.tmp-PID-NANOS}, as
     * {@code OutputDir} names them), and that nothing was written there (the tools publish atomically: what they began
     * is removed). A failure that names no file in {@code out}, or {@code out} null (nothing was to be written): as it is.
     */
    public static String writing(String what, java.nio.file.Path out) {
        if (out == null) return what;
        String dir = out.toAbsolutePath().normalize().toString();
        if (!what.contains(dir + "/")) return what;
        String named = what.replaceAll(java.util.regex.Pattern.quote(dir + "/.") + "([\\w.-]+?)\\.tmp-\\d+-\\d+",
                java.util.regex.Matcher.quoteReplacement(dir) + "/$1 (being written)");
        return named + "; nothing was written to " + dir + " (what was begun is removed)";
    }

    private static String reasonOf(FileSystemException f) {
        if (f instanceof NoSuchFileException) return "no such file or directory";
        if (f instanceof AccessDeniedException) return "permission denied";
        if (f instanceof FileAlreadyExistsException) return "already exists";
        if (f instanceof NotDirectoryException) return "not a directory";
        if (f instanceof DirectoryNotEmptyException) return "directory not empty";
        return "I/O error (" + f.getClass().getSimpleName() + ")";
    }
}
