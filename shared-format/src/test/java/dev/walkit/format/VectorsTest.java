package dev.walkit.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Byte-for-byte conformance with the shared record vectors (records.jsonl, legacy-v1.jsonl). */
class VectorsTest {
    private static final HexFormat HEX = HexFormat.of();

    static List<JsonNode> records() throws IOException {
        return lines("vectors/records.jsonl");
    }

    static List<JsonNode> legacy() throws IOException {
        return lines("vectors/legacy-v1.jsonl");
    }

    private static List<JsonNode> lines(String f) throws IOException {
        ObjectMapper m = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(Fixtures.path(f))) {
            if (!line.isBlank()) out.add(m.readTree(line));
        }
        return out;
    }

    private static KeyValue fields(JsonNode n) {
        return new KeyValue(n.get("flags").asInt(), HEX.parseHex(n.get("key").asText()), n.get("create_revision").asLong(),
                n.get("mod_revision").asLong(), n.get("version").asLong(), HEX.parseHex(n.get("value").asText()), n.get("lease").asLong());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("records")
    void encoderProducesTheVectorBytes(JsonNode n) {
        assertEquals(n.get("record").asText(), HEX.formatHex(new RecordEncoder().encode(fields(n))), n.get("name").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("records")
    void viewDecodesTheVectorFields(JsonNode n) {
        byte[] bytes = HEX.parseHex(n.get("record").asText());
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        RecordView v = new RecordView().wrap(buf, 0, 0);
        KeyValue want = fields(n);
        assertEquals(bytes.length, v.length());
        assertEquals(want.flags(), v.flags());
        assertEquals(want.modRevision(), v.revision(), "revision through the header's mod_rev_offset");
        assertEquals(want, v.toKeyValue());
        KvFields f = v.fields();
        assertEquals(v.keyOffset(), f.keyOffset(), "header key_offset agrees with kv_bytes");
        assertEquals(v.modRevOffset(), f.modRevOffset(), "header mod_rev_offset agrees with kv_bytes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("records")
    void buggyRangesGiveTheVectorCrcs(JsonNode n) {
        byte[] bytes = HEX.parseHex(n.get("record").asText());
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int recLen = buf.getInt(RecordLayout.REC_LEN_OFFSET);
        CRC32C crc = new CRC32C();
        assertEquals(n.get("crc_payload_only").asText(), hexLe(CrcRange.PAYLOAD_ONLY.compute(crc, buf.duplicate(), 0, recLen)));
        assertEquals(n.get("crc_skip_flags").asText(), hexLe(CrcRange.SKIP_FLAGS.compute(crc, buf.duplicate(), 0, recLen)));
        assertEquals(buf.getInt(RecordLayout.crcOffset(recLen)), CrcRange.STANDARD.compute(crc, buf.duplicate(), 0, recLen));
    }

    /** The vectors write the buggy CRCs as the u32 value in hex (the record stores it little-endian). */
    private static String hexLe(int crc) {
        return String.format("%08x", crc);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legacy")
    void v1ReaderDecodesTheLegacyVectors(JsonNode n) throws IOException {
        byte[] bytes = HEX.parseHex(n.get("record").asText());
        var tmp = Files.createTempFile("v1", ".wal");
        try {
            Files.write(tmp, bytes);
            try (WalFile f = WalFile.open(tmp, RecordLayout.DEFAULT_MAX_REC_LEN);
                 V1Reader r = new V1Reader(f, RecordLayout.DEFAULT_MAX_REC_LEN, false)) {
                assertEquals(WalFormat.V1, Wal.sniff(f, RecordLayout.DEFAULT_MAX_REC_LEN).format());
                WalEntry e = assertInstanceOf(WalEntry.class, r.next());
                assertEquals(n.get("revision").asLong(), e.revision());
                assertArrayEquals(HEX.parseHex(n.get("key").asText()), e.key());
                assertEquals(n.get("delete").asBoolean(), e.isDelete());
                assertArrayEquals(HEX.parseHex(n.get("value").asText()), f.read(e.valueOffset(), e.valueLength()));
                assertEquals(bytes.length, e.length());
                assertNull(r.next());
            }
        } finally {
            Files.delete(tmp);
        }
        assertNotNull(n);
    }
}
