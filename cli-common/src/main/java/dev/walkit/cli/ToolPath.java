package dev.walkit.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * How to name another walkit tool in a command a report suggests: by its name when PATH finds that tool
 * there, else by its path beside the running one (the launcher exports {@code WALKIT_BIN}: in a checkout,
 * {@code bin/walrecover}), so the suggestion can be pasted as it is.
 */
public final class ToolPath {
    private ToolPath() {
    }

    public static String of(String tool) {
        return of(tool, System.getenv());
    }

    static String of(String tool, Map<String, String> env) {
        String bin = env.get("WALKIT_BIN");
        if (bin == null || bin.isEmpty()) return tool;
        Path beside = Path.of(bin, tool);
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                try {
                    // The same tool (a symlink into this installation, or this bin/ on PATH): its name is enough.
                    if (Files.isSameFile(p.toRealPath(), beside.toRealPath())) return tool;
                } catch (java.io.IOException e) {
                    // fall through: another tool of that name comes first on PATH
                }
                break;
            }
        }
        Path rel = Path.of("").toAbsolutePath().relativize(beside.toAbsolutePath().normalize());
        String shown = rel.toString().startsWith("..") ? beside.toAbsolutePath().normalize().toString() : rel.toString();
        return shown.contains("/") ? shown : "./" + shown;
    }
}
