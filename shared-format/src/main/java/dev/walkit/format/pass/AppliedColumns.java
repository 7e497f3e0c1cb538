package dev.walkit.format.pass;

/**
 * Every record replay applied, in the order applied (ids from 0): its file offset, revision, whether it is a DELETE,
 * the previous applied record of the same key (each key's history is a chain through these columns), and the ordinary
 * transactions applied as the ids of their first records. Built by the replay ({@link AppliedRecords}) or mapped from
 * a saved index ({@link SavedIndex}).
 */
interface AppliedColumns {
    int size();

    long offset(int id);

    long revision(int id);

    boolean isDelete(int id);

    /** The key's applied record before {@code id}, or -1. */
    int previous(int id);

    int transactionCount();

    /** The id of the first record of ordinary transaction {@code i}. */
    int transactionStart(int i);
}
