package dev.walkit.bench;

import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Reader throughput over a generated Kubernetes-shaped log (warm page cache): one op = one whole
 * pass. GB/s = size / (ms per op). The file is generated once into {@code walkit.bench.dir}
 * (default target/bench) and reused.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class ReaderBenchmark {
    @Param({"1073741824"})
    public long bytes;

    private WalFile file;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path wal = BenchLogs.generated(bytes);
        file = WalFile.open(wal, ReaderOptions.defaults().maxRecLen());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
    }

    private long pass(ReaderOptions o, Blackhole bh) {
        WalReader r = new WalReader(file, o);
        long n = 0;
        for (ReadResult x; (x = r.next()) != null; ) {
            n++;
            bh.consume(x.length());
        }
        return n;
    }

    @Benchmark
    public long frame(Blackhole bh) {
        return pass(ReaderOptions.frame(), bh);
    }

    @Benchmark
    public long decode(Blackhole bh) {
        return pass(ReaderOptions.defaults(), bh);
    }
}
