package dev.walkit.cli;

/** The one exit-code table of the four tools (listed in every tool's --help). */
public enum ExitCode {
    /** Healthy / done. */
    OK(0, "healthy: no damage and no finding (or: the work is done)"),
    /** Only a torn tail: what the tolerate-tail policy repairs. walmigrate: conflicts were left alone. */
    TAIL_ONLY(1, "only a torn tail (what `walrecover --policy tolerate-tail` repairs)"),
    /** walmigrate: keys present in the target with another value were left alone; verify: not equal. */
    CONFLICTS(1, "walmigrate: conflicting keys left unwritten; walmigrate verify: source and target differ"),
    /** waldoctor's one-shot commands and piped shell: a key, revision or lease was not found. */
    NOT_FOUND(1, "waldoctor get/history/…: not found (unknown key, revision or lease)"),
    USAGE(2, "usage error"),
    DAMAGE(3, "damage beyond the tail, or a rule of the format broken; walrecover: the policy refused; walmigrate: a damaged source refused (or its --policy refused)"),
    UNREADABLE(4, "input unreadable or not a WAL; or an output that could not be written (a full disk, a closed pipe, no permission)"),
    /** walmigrate: some keys could not be written (too large for any request; the target refused, kept failing or did not answer). */
    FAILED(5, "walmigrate: some keys could not be written (too large for a request; the target refused, kept failing or did not answer)"),
    SOFTWARE(70, "internal error (a bug: please report it with the command line)");

    private final int code;
    private final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    /** The exit code of a log's verdict ({@link dev.walkit.format.assess.Assessment}): walverify's and waldoctor diagnose's. */
    public static ExitCode of(dev.walkit.format.assess.Assessment.Verdict v) {
        return switch (v) {
            case HEALTHY -> OK;
            case TORN_TAIL -> TAIL_ONLY;
            case DAMAGED, RULES_BROKEN -> DAMAGE;
        };
    }

    /** The table for picocli's exit-code list: code to meaning, in order. */
    public static java.util.Map<String, String> helpLines() {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        for (ExitCode e : values()) out.merge(String.format("%3d", e.code), e.meaning, (a, b) -> a + "; " + b);
        return out;
    }
}
