package dev.walkit.format.pass;

/** How deep walverify looks. */
public enum Level {
    /** Header sanity and the CRC of every record. */
    FRAME,
    /** Also the KeyValue decode and header/payload consistency. */
    DECODE,
    /** Also the replay rules of §5/§6: revision order, transactions, create_revision/version, snapshot prefix. */
    SEMANTIC,
    /**
     * Also every stored Kubernetes value (under /registry/) checked where no checksum covers it: the k8s protobuf
     * envelope and its object's framing, JSON that parses, no sector of zeros ({@link dev.walkit.format.ValueCheck}).
     */
    VALUES;

    /** Whether the history is replayed by the rules (semantic and above). */
    public boolean replays() {
        return this == SEMANTIC || this == VALUES;
    }

    /** The level named {@code s}, in any case; null when it names none. */
    public static Level named(String s) {
        for (Level l : values()) {
            if (l.name().equalsIgnoreCase(s)) return l;
        }
        return null;
    }
}
