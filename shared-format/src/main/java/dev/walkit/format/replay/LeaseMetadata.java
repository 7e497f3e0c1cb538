package dev.walkit.format.replay;

import java.util.Map;
import java.util.TreeMap;

/**
 * Lease metadata rebuilt from the log (docs/format.md §5): grants, TTLs and revokes are not in the
 * log, so it is one lease per distinct non-zero lease ID among live keys, with a conservative TTL,
 * and a next lease ID greater than every ID seen.
 *
 * @param keysByLease live-key count per lease ID, ascending
 * @param ttlSeconds  the conservative TTL given to every lease
 * @param nextLeaseId greater than every lease ID seen in the replayed records
 */
public record LeaseMetadata(Map<Long, Integer> keysByLease, long ttlSeconds, long nextLeaseId) {
    public static final long DEFAULT_TTL_SECONDS = 3600;

    static LeaseMetadata rebuild(KeyIndex keys, long maxLeaseSeen, long ttlSeconds) {
        Map<Long, Integer> byLease = new TreeMap<>();
        keys.forEach(s -> {
            if (s.live && s.lease != 0) byLease.merge(s.lease, 1, Integer::sum);
        });
        return new LeaseMetadata(byLease, ttlSeconds, maxLeaseSeen + 1);
    }
}
