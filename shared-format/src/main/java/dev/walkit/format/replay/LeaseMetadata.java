package dev.walkit.format.replay;

import java.util.Arrays;
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
        // The IDs of the live keys with one, sorted and counted in runs: a million keys on twenty thousand leases
        // made a million boxed merges into the map (a quarter second on a 6 GiB log); a sort of longs is quick.
        long[][] ids = {new long[1024]};
        int[] n = {0};
        keys.forEach(s -> {
            if (s.live && s.lease != 0) {
                if (n[0] == ids[0].length) ids[0] = Arrays.copyOf(ids[0], n[0] * 2);
                ids[0][n[0]++] = s.lease;
            }
        });
        long[] a = ids[0];
        Arrays.sort(a, 0, n[0]);
        Map<Long, Integer> byLease = new TreeMap<>();
        for (int i = 0; i < n[0]; ) {
            int j = i;
            while (j < n[0] && a[j] == a[i]) j++;
            byLease.put(a[i], j - i);
            i = j;
        }
        return new LeaseMetadata(byLease, ttlSeconds, maxLeaseSeen + 1);
    }
}
