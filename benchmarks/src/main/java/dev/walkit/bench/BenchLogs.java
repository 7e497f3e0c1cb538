package dev.walkit.bench;

import dev.walkit.testdata.K8sWalGenerator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The benchmarks' generated logs: made once into {@code walkit.bench.dir} (default target/bench) and reused. */
final class BenchLogs {
    private BenchLogs() {
    }

    /** A Kubernetes-shaped log of about {@code bytes} (seed 1), generated on first use. */
    static Path generated(long bytes) throws IOException {
        Path dir = Paths.get(System.getProperty("walkit.bench.dir", "target/bench"));
        Files.createDirectories(dir);
        Path wal = dir.resolve("k8s-" + bytes + ".wal");
        if (!Files.exists(wal)) {
            Path tmp = dir.resolve("k8s-" + bytes + ".wal.tmp");
            Files.deleteIfExists(tmp);
            new K8sWalGenerator(K8sWalGenerator.Options.of(1, bytes)).write(tmp);
            Files.move(tmp, wal);
        }
        return wal;
    }
}
