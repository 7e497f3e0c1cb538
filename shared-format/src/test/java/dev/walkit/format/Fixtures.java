package dev.walkit.format;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Locates the committed fixtures under {@code testdata/fixtures/} from any module's tests. */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path root() {
        String prop = System.getProperty("walkit.root");
        if (prop != null && Files.isDirectory(Paths.get(prop, "testdata", "fixtures"))) return Paths.get(prop);
        Path p = Paths.get("").toAbsolutePath();
        while (p != null) {
            if (Files.isDirectory(p.resolve("testdata").resolve("fixtures"))) return p;
            p = p.getParent();
        }
        throw new IllegalStateException("cannot find testdata/fixtures above " + Paths.get("").toAbsolutePath());
    }

    public static Path path(String relative) {
        return root().resolve("testdata").resolve("fixtures").resolve(relative);
    }
}
