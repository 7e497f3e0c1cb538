package dev.walkit.migrate;

/**
 * One live key of a migration source.
 *
 * @param lease kine: the TTL in seconds (kine's lease ID is the TTL); WAL: the lease ID; 0 for none
 */
public record SourceKey(byte[] key, byte[] value, long createRevision, long modRevision, long version, long lease) {
}
