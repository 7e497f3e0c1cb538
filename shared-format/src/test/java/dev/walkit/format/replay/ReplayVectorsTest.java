package dev.walkit.format.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Fixtures;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Replay of the shared logs matches their expected.json field for field. */
class ReplayVectorsTest {
    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest
    @ValueSource(strings = {"small", "small-compacted", "small-torn-tail"})
    void replayMatchesExpected(String name) throws IOException {
        Path dir = Fixtures.path("vectors/" + name);
        JsonNode want = new ObjectMapper().readTree(dir.resolve("expected.json").toFile());
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(dir.resolve("wal"), ro.maxRecLen())) {
            Replay.Result r = Replay.run(f, ro, Replayer.Options.defaults(), null);
            Replayer s = r.state();
            assertEquals(WalFormat.V2, r.format());
            assertEquals(want.get("revision").asLong(), s.revision(), "revision");
            assertEquals(want.get("compact_revision").asLong(), s.compactRevision(), "compact_revision");
            assertEquals(want.get("transactions").asLong(), s.transactions(), "transactions");
            assertEquals(want.get("records").asLong(), s.records(), "records");
            List<String> wantDamage = new ArrayList<>();
            want.get("damage").forEach(d -> wantDamage.add(d.get("offset").asLong() + "+" + d.get("length").asLong() + ":" + d.get("kind").asText()));
            List<String> gotDamage = new ArrayList<>();
            for (DamageSpan d : s.damage()) gotDamage.add(d.offset() + "+" + d.length() + ":" + d.kind().label());
            assertEquals(wantDamage, gotDamage, "damage");
            List<Long> wantLeases = new ArrayList<>();
            want.get("leases").forEach(l -> wantLeases.add(l.asLong()));
            assertEquals(wantLeases, new ArrayList<>(s.leases(3600).keysByLease().keySet()), "leases");
            Map<String, String> wantKeys = new LinkedHashMap<>();
            want.get("keys").properties().forEach(e -> wantKeys.put(e.getKey(), describe(e.getValue())));
            Map<String, String> gotKeys = new LinkedHashMap<>();
            for (KeyState k : s.keys().sortedLive()) {
                gotKeys.put(new String(k.key(), StandardCharsets.UTF_8), k.createRevision() + "/" + k.modRevision() + "/" + k.version()
                        + "/" + k.lease() + "/" + HEX.formatHex(f.read(k.valueOffset(), k.valueLength())));
            }
            assertEquals(wantKeys, gotKeys, "keys");
            assertEquals(s.findingCounts(), Map.of(), "no findings in a healthy log");
        }
    }

    private static String describe(JsonNode k) {
        return k.get("create_revision").asLong() + "/" + k.get("mod_revision").asLong() + "/" + k.get("version").asLong() + "/"
                + k.get("lease").asLong() + "/" + k.get("value").asText();
    }

    @Test
    void crcRangeBugIsOneSpanAndAcceptedWithTheFlag() throws IOException {
        Path wal = Fixtures.path("vectors/small-crc-range-bug/wal");
        ReaderOptions ro = ReaderOptions.defaults();
        try (WalFile f = WalFile.open(wal, ro.maxRecLen())) {
            Replayer s = Replay.run(f, ro, Replayer.Options.defaults(), null).state();
            assertEquals(1, s.damage().size());
            DamageSpan d = s.damage().get(0);
            assertEquals(DamageKind.CRC_RANGE_BUG, d.kind());
            assertEquals(CrcRange.PAYLOAD_ONLY, d.crcRange());
            assertEquals(0, d.offset());
            assertEquals(f.size(), d.length());
            assertEquals(122, d.records());
            assertEquals(0, s.records());

            Replayer ok = Replay.run(f, ro.withAcceptCrc(CrcRange.PAYLOAD_ONLY), Replayer.Options.defaults(), null).state();
            assertEquals(List.of(), ok.damage());
            assertEquals(122, ok.records());
            assertEquals(Map.of(), ok.findingCounts());
        }
    }
}
