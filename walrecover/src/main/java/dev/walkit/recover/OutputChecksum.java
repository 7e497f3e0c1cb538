package dev.walkit.recover;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/**
 * The checksum of the output in the report, as PostgreSQL's backup manifests do it: CRC-32C by default (the
 * format's own CRC, hardware-accelerated), SHA-256 on request. Either is computed as the read-back reads the file.
 */
enum OutputChecksum {
    CRC32C("crc32c"), SHA256("sha256");

    private final String label;

    OutputChecksum(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    static OutputChecksum fromLabel(String s) {
        for (OutputChecksum c : values()) {
            if (c.label.equals(s)) return c;
        }
        throw new IllegalArgumentException("'" + s + "' is not a checksum (crc32c, sha256)");
    }

    /** A new digest of this kind (its hex is the checksum the report gives). */
    MessageDigest newDigest() {
        if (this == CRC32C) return new Crc32cDigest();
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** CRC-32C as a {@link MessageDigest}: four bytes, big-endian (the hex reads as the CRC's value). */
    private static final class Crc32cDigest extends MessageDigest {
        private final CRC32C crc = new CRC32C();

        Crc32cDigest() {
            super("CRC-32C");
        }

        @Override
        protected void engineUpdate(byte input) {
            crc.update(input);
        }

        @Override
        protected void engineUpdate(byte[] input, int offset, int len) {
            crc.update(input, offset, len);
        }

        @Override
        protected void engineUpdate(ByteBuffer input) {
            crc.update(input);
        }

        @Override
        protected int engineGetDigestLength() {
            return 4;
        }

        @Override
        protected byte[] engineDigest() {
            int v = (int) crc.getValue();
            crc.reset();
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }

        @Override
        protected void engineReset() {
            crc.reset();
        }
    }
}
