package dev.walkit.verify;

/** How deep walverify looks. */
public enum VerifyLevel {
    /** Header sanity and the CRC of every record. */
    FRAME,
    /** Also the KeyValue decode and header/payload consistency. */
    DECODE,
    /** Also the replay rules of §5/§6: revision order, transactions, create_revision/version, snapshot prefix. */
    SEMANTIC;

    /** The level named {@code s}, in any case; null when it names none. */
    static VerifyLevel named(String s) {
        for (VerifyLevel l : values()) {
            if (l.name().equalsIgnoreCase(s)) return l;
        }
        return null;
    }
}
