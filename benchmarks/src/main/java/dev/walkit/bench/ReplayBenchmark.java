package dev.walkit.bench;

import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import dev.walkit.format.replay.CleanReplay;
import dev.walkit.format.replay.CleanScan;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
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

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Whether the light replay pays for being a second traversal (issue 29: keep one only where it pays at least 15%):
 * a clean generated log replayed whole by the light replay ({@link CleanScan}: {@link CleanReplay} over the key
 * table, on two cores for a log of 64 MiB or more), and by the replay that makes findings ({@link Replay}: the reader's
 * thread and {@link Replayer}), each to the same state (the tests that hold them equal: CleanScanTest, PlainApplyTest,
 * LightDigestTest, DifferentialFindingsTest, FormReplayTest, and OneAccountTest over every view). One op = one pass.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx4g", "-XX:+UseParallelGC"})
public class ReplayBenchmark {
    @Param({"268435456"})
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

    @Benchmark
    public long light() throws IOException {
        CleanReplay c = CleanScan.scan(file, ReaderOptions.defaults(), CleanReplay.whole());
        if (c.irregularity() != null) throw new IllegalStateException(c.irregularity());
        return c.liveCount();
    }

    @Benchmark
    public long full() throws IOException {
        return Replay.run(file, WalFormat.V2, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state().keys().liveCount();
    }
}
