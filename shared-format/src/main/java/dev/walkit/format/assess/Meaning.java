package dev.walkit.format.assess;

import dev.walkit.format.DamageKind;
import dev.walkit.format.KeyValue;

/**
 * What each kind of damage or finding means for the operator, in one line: the one table walverify, waldoctor
 * and walrecover print from. A new {@link DamageKind} is a compile error here until it has its line.
 */
public final class Meaning {
    private Meaning() {
    }

    /**
     * What {@code k} means in a log whose verdict is {@code verdict}: a torn tail beside other damage is not what
     * tolerate-tail repairs (that policy refuses the log), so its line says which policy drops it then.
     */
    public static String of(DamageKind k, Assessment.Verdict verdict) {
        if (k == DamageKind.TORN_TAIL && (verdict == Assessment.Verdict.DAMAGED || verdict == Assessment.Verdict.RULES_BROKEN)) {
            return "a crash mid-append: the last unsynced write is lost; with the other damage here tolerate-tail refuses the log: "
                    + "`walrecover --policy salvage` drops it and keeps every complete transaction";
        }
        return of(k);
    }

    public static String of(DamageKind k) {
        return switch (k) {
            case TORN_TAIL -> "a crash mid-append: the last unsynced write is lost; `walrecover --policy tolerate-tail` drops it";
            case CRC_MISMATCH -> "a record's bytes changed after it was written (disk or memory corruption); its transaction is lost";
            case BAD_HEADER -> "a record header is corrupt; the bytes up to the next valid record are lost";
            case INCONSISTENT_HEADER -> "a writer bug: the CRC is right but the header points at the wrong bytes";
            case UNDECODABLE_PAYLOAD -> "a writer bug: the CRC is right but the payload is not a KeyValue";
            case GARBAGE_SPAN -> "bytes that form no record (overwritten or zero-filled block); resync found valid records after it";
            case CRC_RANGE_BUG -> "the crc range writer bug: the data is intact, only the CRCs are wrong; recover with `walrecover --accept-crc`";
            case INCOMPLETE_TRANSACTION -> "a transaction that never committed (its closing record is missing); replay drops it";
            case REVISION_REGRESSION -> "a revision repeats or goes back (a duplicated tail?); replay keeps the first occurrence";
            case DUPLICATED_RECORD -> "a record written twice (an append retried after a timeout?): the repeat is dropped, nothing is lost";
            case VERSION_MISMATCH -> "create_revision/version break the rules of a healthy store; the key's history is suspect";
            case TRUNCATED_SNAPSHOT -> "a compaction's snapshot prefix lost records: keys live at the compact revision may be missing";
            case MISPLACED_SNAPSHOT -> "snapshot records out of place (outside the prefix at offset 0, inside a transaction, a key twice, or more than the marker counts)";
            case DELETE_OF_ABSENT_KEY -> "a delete of a key that was not live: history before it is missing or corrupt";
            case UNDECODABLE_VALUE -> "a value the apiserver could not have written, in a record whose CRC matches: corrupted before it was "
                    + "written (memory), or by a writer bug; the key's object is unreadable at that revision";
            case LEFTOVER_COMPACTION -> "a compaction did not finish; wal is authoritative and wal.compact can be removed after a backup";
        };
    }
}
