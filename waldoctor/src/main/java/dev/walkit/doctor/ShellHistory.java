package dev.walkit.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Where the shell keeps its history: {@code $XDG_STATE_HOME/walkit/waldoctor_history}, else
 * {@code $HOME/.local/state/walkit/waldoctor_history} (the XDG base directories; Java's {@code user.home}
 * only when HOME is unset). On a node whose home cannot be written (read-only, user nobody) the shell says
 * so once, at start, and keeps the history in memory.
 */
final class ShellHistory {
    static final String FILE = "waldoctor_history";

    /** The file, or why none can be kept. */
    record Place(Path file, String problem) {
    }

    private ShellHistory() {
    }

    static Path path(Map<String, String> env) {
        String state = env.get("XDG_STATE_HOME");
        if (state != null && Path.of(state).isAbsolute()) return Path.of(state, "walkit", FILE);
        String home = env.get("HOME");
        if (home == null || home.isEmpty()) home = System.getProperty("user.home");
        return Path.of(home, ".local", "state", "walkit", FILE);
    }

    /** The history file, made ready to append to; or, when it cannot be, the one line that says why. */
    static Place open(Map<String, String> env) {
        Path p = path(env);
        try {
            Files.createDirectories(p.getParent());
            Files.newOutputStream(p, StandardOpenOption.CREATE, StandardOpenOption.APPEND).close();
            // Commands name keys and revisions of a cluster's data: the owner's alone, as psql and bash keep theirs.
            try {
                Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: its own rules apply
            }
            return new Place(p, null);
        } catch (IOException | SecurityException e) {
            String why = e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
            return new Place(null, "the shell's history is not kept: " + p + ": " + why);
        }
    }
}
