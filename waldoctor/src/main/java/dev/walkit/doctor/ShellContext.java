package dev.walkit.doctor;

/** What the shell's commands share: the loaded log, the revision being viewed, display switches. */
public final class ShellContext {
    final LogIndex index;
    final boolean showSecrets;
    /** The revision {@code at} set; Long.MAX_VALUE for the latest. */
    long viewRevision = Long.MAX_VALUE;

    public ShellContext(LogIndex index, boolean showSecrets) {
        this.index = index;
        this.showSecrets = showSecrets;
    }

    public LogIndex index() {
        return index;
    }

    public long viewRevision() {
        return viewRevision;
    }
}
