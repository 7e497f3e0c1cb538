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
 * @param form       the output's form: auto (history when its kept records obey §5 as they stand, else snapshot),
 *                   history, or snapshot (a snapshot prefix of the final state; {@code --compact})
 * @param acceptCrc  accept records whose CRC matches this buggy range, rewriting the CRC; or null
 * @param leaseTtl   the conservative TTL of rebuilt leases, seconds
 * @param dryRun     write nothing; report and preview the loss
 * @param force      write into the input's directory or over an existing {@code out/wal} (kept as wal.broken.TS)
 * @param allowEmpty write an empty WAL when no transaction survives (otherwise that is a refusal)
 * @param checksum   the output's checksum in the report: crc32c (the default) or sha256
 * @param store      the output's store: a WAL ({@code out/wal}, {@code out/leases.json}), an etcd db ({@code out/db}) or kine's
 *                   database ({@code out/state.db})
 * @param bumpRevision an etcd db output's revision this far past the recovered one, compacted there ({@code --bump-revision N --mark-compacted}); 0: none
 */
public record RecoveryOptions(Path input, Path out, RecoveryPolicy policy, long toRevision, Form form, CrcRange acceptCrc,
                              long leaseTtl, boolean dryRun, boolean force, boolean allowEmpty, OutputChecksum checksum, dev.walkit.format.account.Store.Kind store,
                              long bumpRevision) {

    /** The output's file name in its directory: {@code wal} (with {@code leases.json}), {@code db}, {@code state.db}. */
    public String file() {
        return switch (store) {
            case WAL -> dev.walkit.format.Wal.WAL_FILE;
            case ETCD_DB -> dev.walkit.format.output.EtcdDbOutput.FILE;
            case KINE -> dev.walkit.format.output.KineOutput.FILE;
        };
    }

    /** The output's form. */
    public enum Form {
        AUTO("auto"), HISTORY("history"), SNAPSHOT("snapshot");

        private final String label;

        Form(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public static Form fromLabel(String s) {
            for (Form f : values()) {
                if (f.label.equals(s)) return f;
            }
            throw new IllegalArgumentException("'" + s + "' is not a form (auto, history, snapshot)");
        }
    }

    /** Whether the snapshot form is asked for. */
    public boolean compact() {
        return form == Form.SNAPSHOT;
    }

    /** A usage problem in words, or null. */
    public String validate() {
        if (leaseTtl <= 0) return "--lease-ttl must be positive";
        if (toRevision <= 0) return "--to-revision must be positive";
        if (out == null && !dryRun) return "--out DIR is required (or --dry-run)";
        if (bumpRevision < 0) return "--bump-revision must be 0 or more";
        if (bumpRevision > 0 && store != dev.walkit.format.account.Store.Kind.ETCD_DB) return "--bump-revision is for an etcd db output (--out-format etcd-db)";
        return null;
    }
}
