package dev.walkit.doctor;

import dev.walkit.format.pass.StoreHistory;

/** What the shell's commands share: the loaded log, the revision being viewed, display switches. */
public final class ShellContext {
    final StoreHistory index;
    final boolean showSecrets;
    /** The revision {@code at} set; Long.MAX_VALUE for the latest. */
    long viewRevision = Long.MAX_VALUE;
    /** How many rows a listing shows unless asked (--limit): bounded on a terminal, 0 (all) from a pipe or one-shot. */
    long rows;
    /** The terminal's width, which help wraps to at spaces; 0 (no wrapping) from a pipe or one-shot. */
    int width;
    /** Set by Ctrl-C while a command runs: its loops stop, and the shell goes back to the prompt. */
    volatile boolean interrupted;

    public ShellContext(StoreHistory index, boolean showSecrets) {
        this.index = index;
        this.showSecrets = showSecrets;
    }

    public StoreHistory index() {
        return index;
    }
}
