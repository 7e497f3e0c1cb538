package dev.walkit.recover;

import dev.walkit.format.CrcRange;
import dev.walkit.format.policy.RecoveryPolicy;

import java.nio.file.Path;

/**
 * What walrecover is asked to do. Validates itself ({@link #validate()}) before any work.
 *
 * @param input      a WAL file or data directory (v1 or v2)
 * @param out        the output data directory: {@code out/wal} and {@code out/leases.json}
 * @param policy     §9 policy
 * @param toRevision keep only transactions with revision at most this (point-in-time recovery), or MAX
 * @param compact    write a snapshot prefix of the final state instead of the full history
 * @param acceptCrc  accept records whose CRC matches this buggy range, rewriting the CRC; or null
 * @param leaseTtl   the conservative TTL of rebuilt leases, seconds
 * @param dryRun     write nothing; report and preview the loss
 * @param force      write into the input's directory or over an existing {@code out/wal} (kept as wal.broken.TS)
 */
public record RecoveryOptions(Path input, Path out, RecoveryPolicy policy, long toRevision, boolean compact, CrcRange acceptCrc,
                              long leaseTtl, boolean dryRun, boolean force, boolean allowEmpty) {

    /** A usage problem in words, or null. */
    public String validate() {
        if (leaseTtl <= 0) return "--lease-ttl must be positive";
        if (toRevision <= 0) return "--to-revision must be positive";
        if (out == null && !dryRun) return "--out DIR is required (or --dry-run)";
        return null;
    }
}
