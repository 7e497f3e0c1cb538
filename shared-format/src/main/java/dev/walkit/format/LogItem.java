package dev.walkit.format;

/** What an {@link EntrySource} yields, in either format: a record's fields or a damaged span. */
public sealed interface LogItem permits WalEntry, DamageSpan {
    long offset();

    long length();
}
