package dev.walkit.format;

import java.io.IOException;

/**
 * The input is not a WAL at all (empty, another kind of file, no valid record of either format anywhere):
 * every tool answers it the same way, exit 4 with this reason ({@link Wal#requireWal}).
 */
public final class NotAWalException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotAWalException(String reason) {
        super(reason);
    }
}
