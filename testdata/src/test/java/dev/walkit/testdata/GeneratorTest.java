package dev.walkit.testdata;

import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.replay.KeyState;
import dev.walkit.format.replay.Replay;
import dev.walkit.format.replay.Replayer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A generated log replays to exactly the generator's own model, plain and compacted. */
class GeneratorTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void replayEqualsTheModel(boolean compacted) throws Exception {
        Path wal = dir.resolve("wal");
        K8sWalGenerator g = new K8sWalGenerator(K8sWalGenerator.Options.of(11, 3 << 20).withCompacted(compacted));
        g.write(wal);
        assertTrue(Files.size(wal) >= 3 << 20);
        assertArrayEquals(Files.readAllBytes(wal),
                new K8sWalGenerator(K8sWalGenerator.Options.of(11, 3 << 20).withCompacted(compacted)).bytes(), "bytes() is what write() writes");
        try (WalFile f = WalFile.open(wal, ReaderOptions.defaults().maxRecLen())) {
            Replayer s = Replay.run(f, ReaderOptions.defaults(), Replayer.Options.defaults(), null).state();
            assertEquals(Map.of(), s.findingCounts());
            assertEquals(0, s.damage().size());
            assertEquals(g.revision(), s.revision());
            assertEquals(g.compactRevision(), s.compactRevision());
            assertEquals(g.records(), s.records());
            assertEquals(g.live().size(), s.keys().liveCount());
            for (KeyState k : s.keys().sortedLive()) {
                K8sWalGenerator.Live want = g.live().get(k.key());
                assertEquals(want.createRevision(), k.createRevision());
                assertEquals(want.modRevision(), k.modRevision());
                assertEquals(want.version(), k.version());
                assertEquals(want.lease(), k.lease());
                assertArrayEquals(want.value(), f.read(k.valueOffset(), k.valueLength()), () -> Arrays.toString(k.key()));
            }
            assertTrue(s.leases(3600).keysByLease().size() > 0, "events carry leases");
        }
    }
}
