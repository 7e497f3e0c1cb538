package dev.walkit.doctor;

import dev.walkit.format.pass.SavedIndex;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where waldoctor keeps a log's saved index ({@link SavedIndex}): {@code $XDG_CACHE_HOME/walkit/index}, else
 * {@code $HOME/.cache/walkit/index} (the XDG base directories; Java's {@code user.home} only when HOME is unset):
 * the user's, never beside the evidence. Why an index was not used or not saved is one line on standard error,
 * prefixed with the command's name.
 */
final class IndexCache {
    private IndexCache() {
    }

    static Path dir(Map<String, String> env) {
        String cache = env.get("XDG_CACHE_HOME");
        if (cache != null && Path.of(cache).isAbsolute()) return Path.of(cache, "walkit", "index");
        String home = env.get("HOME");
        if (home == null || home.isEmpty()) home = System.getProperty("user.home");
        return Path.of(home, ".cache", "walkit", "index");
    }

    /** The cache for {@code name}'s load, or null with {@code --no-index}. */
    static SavedIndex.Cache of(String name, boolean noIndex, PrintWriter err) {
        if (noIndex) return null;
        return new SavedIndex.Cache(dir(System.getenv()), line -> {
            synchronized (err) {
                err.println(name + ": " + line);
                err.flush();
            }
        });
    }
}
