package dev.walkit.format;

/** The two on-disk formats (docs/format.md §2 and §8). */
public enum WalFormat {
    V2("v2"),
    V1("v1");

    private final String label;

    WalFormat(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
