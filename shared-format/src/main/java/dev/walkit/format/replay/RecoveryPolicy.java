package dev.walkit.format.replay;

/**
 * The four recovery policies of docs/format.md §9, named after RocksDB's WAL recovery modes.
 * "Damage" is a damaged byte span or an incomplete transaction; the tail is the damage after which
 * no complete transaction follows.
 */
public enum RecoveryPolicy {
    /** Any damage or finding: fail, write nothing. */
    ABSOLUTE("absolute"),
    /** Damage at the tail is dropped; damage anywhere else: fail, write nothing. */
    TOLERATE_TAIL("tolerate-tail"),
    /** Keep everything before the first damage, drop the rest. */
    POINT_IN_TIME("point-in-time"),
    /** Keep every complete transaction that survived; skip damaged bytes by resync. */
    SALVAGE("salvage");

    private final String label;

    RecoveryPolicy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static RecoveryPolicy fromLabel(String s) {
        for (RecoveryPolicy p : values()) {
            if (p.label.equals(s)) return p;
        }
        throw new IllegalArgumentException("'" + s + "' is not a policy (salvage, point-in-time, tolerate-tail, absolute)");
    }
}
