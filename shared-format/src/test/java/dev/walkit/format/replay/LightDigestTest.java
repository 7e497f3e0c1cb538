package dev.walkit.format.replay;

import dev.walkit.format.KeyValue;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.testdata.DamageInjector;
import dev.walkit.testdata.K8sWalGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The light replay for a digest (CleanReplay.forDigest), in one pass as the read-back runs it
 * (TrailingVerify) and in two halves (CleanScan), gives the state digest Replayer's state gives for clean and
 * compacted logs; on a log with a single-record rule break, in either half, it stops, as walverify's semantic
 * level does (an output that carries one does not verify: it is the same check).
 */
class LightDigestTest {
    @TempDir
    Path dir;

    private static List<byte[]> logs(DamageInjector d) {
        List<byte[]> out = new ArrayList<>();
        int n = d.recordCount();
        for (int i : new int[] {1, n / 4, n / 2 - 1, n / 2, n / 2 + 1, n / 2 + 7, 3 * n / 4, n - 1}) {
            KeyValue kv = d.record(i);
            if (kv.isDelete() || (kv.flags() & dev.walkit.format.Flags.SNAPSHOT) != 0) continue;
            out.add(d.reencoded(i, k -> new KeyValue(k.flags(), k.key(), k.createRevision(), k.modRevision(), k.version() + 5, k.value(), k.lease())));
            out.add(d.reencoded(i, k -> KeyValue.delete("/registry/never/was".getBytes(StandardCharsets.UTF_8), k.modRevision()).withFlags(k.flags() | 1)));
        }
        return out;
    }

    @Test
    void theLightReadBackDigestsAsReplayerDoes() throws Exception {
        int checked = 0;
        int joined = 0;
        int stopped = 0;
        for (boolean compacted : new boolean[] {false, true}) {
            byte[] clean = new K8sWalGenerator(K8sWalGenerator.Options.of(11, 512 << 10).withCompacted(compacted)).bytes();
            DamageInjector d = new DamageInjector(clean);
            List<byte[]> all = new ArrayList<>(logs(d));
            all.add(clean);
            for (byte[] log : all) {
                Path p = Files.write(dir.resolve("wal"), log);
                ReaderOptions ro = ReaderOptions.defaults();
                try (WalFile f = WalFile.open(p, ro.maxRecLen())) {
                    Replayer s = Replay.run(f, ro, Replayer.Options.defaults(), null).state();
                    String want = StateDigest.of(s.keys(), s.revision(), f::readFully);
                    for (long minSplit : new long[] {Long.MAX_VALUE, 0}) {
                        CleanReplay light = CleanScan.scan(f, ro, CleanReplay.forDigest(), minSplit);
                        if (!s.findings().isEmpty()) {
                            assertNotNull(light.irregularity(), "a rule break: compacted=" + compacted + ", split=" + (minSplit == 0));
                            stopped++;
                            continue;
                        }
                        assertNull(light.irregularity(), "compacted=" + compacted + ", split=" + (minSplit == 0));
                        assertEquals(want, light.digest(f::readFully), "compacted=" + compacted + ", split=" + (minSplit == 0));
                        checked++;
                        if (light.joined()) joined++;
                    }
                }
            }
        }
        assertEquals(4, checked, "the clean and compacted logs, in one pass and in halves");
        assertEquals(true, stopped >= 30, "stopped at only " + stopped + " rule breaks");
        // The plain log is joined at the middle; the compacted one (a prefix past the middle) is read on.
        assertEquals(1, joined, "joined " + joined + " times");
    }
}
