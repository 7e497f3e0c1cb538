package dev.walkit.format;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.walkit.format.proto.KvProto;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Round trips within the format's limits, with protobuf-java (generated from kv.proto) as the oracle:
 * our canonical bytes parse to the same fields there, and any encoding protobuf-java writes (fields
 * reordered, unknown fields) decodes to the same fields here. Tries: jqwik.tries.default (10,000).
 */
class CodecProperties {
    @Provide
    Arbitrary<KeyValue> keyValues() {
        Arbitrary<byte[]> keys = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(300);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(2000);
        Arbitrary<Long> revs = Arbitraries.longs().between(1, (1L << 56) - 1);
        Arbitrary<Long> any = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(0, 1000));
        Arbitrary<Integer> flags = Arbitraries.integers().between(0, 7);
        return Combinators.combine(flags, keys, any, revs, any, values, any)
                .as((f, k, c, m, v, val, l) -> new KeyValue(f, k, c, m, v, val, l));
    }

    @Property(edgeCases = EdgeCasesMode.MIXIN)
    void canonicalRoundTrip(@ForAll("keyValues") KeyValue kv) throws InvalidProtocolBufferException {
        byte[] rec = new RecordEncoder().encode(kv);
        RecordView v = new RecordView().wrap(LogBuilder.le(rec), 0, 0);
        assertEquals(kv, v.toKeyValue());
        assertEquals(kv.modRevision(), v.revision());
        assertEquals(RecordLayout.CANONICAL_KEY_OFFSET, v.keyOffset());
        assertEquals(v.modRevOffset(), v.fields().modRevOffset());
        KvProto.KeyValue p = KvProto.KeyValue.parseFrom(ByteBuffer.wrap(rec, RecordLayout.KV_OFFSET, v.recLen()));
        assertArrayEquals(kv.key(), p.getKey().toByteArray());
        assertArrayEquals(kv.value(), p.getValue().toByteArray());
        assertEquals(kv.createRevision(), p.getCreateRevision());
        assertEquals(kv.modRevision(), p.getModRevision());
        assertEquals(kv.version(), p.getVersion());
        assertEquals(kv.lease(), p.getLease());
    }

    @Property(edgeCases = EdgeCasesMode.MIXIN)
    void anyProtobufEncodingDecodes(@ForAll("keyValues") KeyValue kv, @ForAll boolean reversed, @ForAll boolean unknown)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        if (unknown) {
            out.writeString(99, "unknown");
            out.writeFixed64(7, 5);
        }
        if (reversed) {
            if (kv.lease() != 0) out.writeInt64(6, kv.lease());
            out.writeBytes(5, ByteString.copyFrom(kv.value()));
            out.writeInt64(4, kv.version());
            out.writeInt64(3, kv.modRevision());
            out.writeInt64(2, kv.createRevision());
            out.writeBytes(1, ByteString.copyFrom(kv.key()));
        } else {
            out.writeBytes(1, ByteString.copyFrom(kv.key()));
            out.writeInt64(2, kv.createRevision());
            out.writeInt64(3, kv.modRevision());
            out.writeInt64(4, kv.version());
            out.writeBytes(5, ByteString.copyFrom(kv.value()));
            out.writeInt64(6, kv.lease());
        }
        if (unknown) out.writeFixed32(8, 1);
        out.flush();
        byte[] kvBytes = bytes.toByteArray();
        KvFields f = new KvFields();
        assertTrue(new KvDecoder().decode(ByteBuffer.wrap(kvBytes), 0, kvBytes.length, f), () -> f.error());
        KvProto.KeyValue p = KvProto.KeyValue.parseFrom(kvBytes);
        assertArrayEquals(p.getKey().toByteArray(), f.key(ByteBuffer.wrap(kvBytes)));
        assertArrayEquals(p.getValue().toByteArray(), f.value(ByteBuffer.wrap(kvBytes)));
        assertEquals(p.getCreateRevision(), f.createRevision());
        assertEquals(p.getModRevision(), f.modRevision());
        assertEquals(p.getVersion(), f.version());
        assertEquals(p.getLease(), f.lease());
    }
}
