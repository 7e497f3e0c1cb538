package dev.walkit.format;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Resync's branch-light header test accepts exactly the headers the reader's HeaderCheck accepts. */
class FramingProperties {
    record Header(byte flags, int keyOffset, int modRevOffset, int recLen, long remaining, int maxRecLen) {
    }

    @Provide
    Arbitrary<Header> headers() {
        // Values near every boundary the rules draw, and anything at all.
        Arbitrary<Integer> small = Arbitraries.oneOf(Arbitraries.integers().between(0, 12), Arbitraries.integers().between(0, 0xFFFF));
        Arbitrary<Integer> recLen = Arbitraries.oneOf(Arbitraries.integers().between(-3, 40), Arbitraries.integers(),
                Arbitraries.integers().between((16 << 20) - 2, (16 << 20) + 2));
        Arbitrary<Long> remaining = Arbitraries.oneOf(Arbitraries.longs().between(9, 80), Arbitraries.longs().between(9, Long.MAX_VALUE / 2));
        return Combinators.combine(Arbitraries.bytes(), small, small, recLen, remaining, Arbitraries.of(16 << 20, 64, 1 << 30))
                .as(Header::new);
    }

    @Property
    void theNinthByteFilterKeepsEveryRecLenUnderTheMaximum(@ForAll("maxRecLens") int maxRecLen, @ForAll("fractions") double f) {
        // Resync skips an offset when rec_len's top byte has a bit of this mask set: never for a rec_len it must accept.
        int recLen = (int) (maxRecLen * f);
        long mask = Framing.v2(maxRecLen).ninthByteMask() & 0xFF;
        if (((recLen >>> 24) & mask) != 0) throw new AssertionError("rec_len " + recLen + " <= " + maxRecLen + " filtered out by mask " + mask);
        // ...and a negative rec_len (top bit set) is filtered whenever the maximum is below 2^31.
        if ((0x80 & mask) == 0) throw new AssertionError("mask " + mask + " lets negative rec_len through for maximum " + maxRecLen);
    }

    @Provide
    Arbitrary<Integer> maxRecLens() {
        return Arbitraries.oneOf(Arbitraries.of(16 << 20, (16 << 20) - 1, (32 << 20) - 1, 1 << 24, 64, Integer.MAX_VALUE >>> 1),
                Arbitraries.integers().between(1, Integer.MAX_VALUE >>> 1));
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.oneOf(Arbitraries.of(0.0, 1.0), Arbitraries.doubles().between(0, 1));
    }

    @Property
    void plausibleFrameIsHeaderCheckOk(@ForAll("headers") Header h) {
        ByteBuffer buf = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(RecordLayout.FLAGS_OFFSET, h.flags()).putShort(RecordLayout.KEY_OFFSET_OFFSET, (short) h.keyOffset())
                .putShort(RecordLayout.MOD_REV_OFFSET_OFFSET, (short) h.modRevOffset()).putInt(RecordLayout.REC_LEN_OFFSET, h.recLen());
        boolean ok = HeaderCheck.check(buf, 0, h.remaining(), h.maxRecLen()) == HeaderCheck.OK;
        long frame = Framing.v2(h.maxRecLen()).plausibleFrame(buf, 0, h.remaining());
        if (ok) {
            if (frame != RecordLayout.recordLength(h.recLen())) throw new AssertionError(h + ": HeaderCheck OK, plausibleFrame " + frame);
        } else if (frame != -1) {
            throw new AssertionError(h + ": HeaderCheck " + HeaderCheck.check(buf, 0, h.remaining(), h.maxRecLen()) + ", plausibleFrame " + frame);
        }
    }
}
