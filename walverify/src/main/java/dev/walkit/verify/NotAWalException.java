package dev.walkit.verify;

/** The input is not a WAL at all (empty, another kind of file, random bytes): exit 4 with this reason. */
public final class NotAWalException extends Exception {
    private static final long serialVersionUID = 1L;

    public NotAWalException(String reason) {
        super(reason);
    }
}
