package dev.walkit.doctor;

import dev.walkit.format.pass.StoreHistory;
import dev.walkit.format.pass.Tallies;
import dev.walkit.cli.ExitCode;
import dev.walkit.format.assess.Assessment;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.account.Account;
import dev.walkit.format.replay.DamageLocator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The incident report: what the log is, what is wrong with it, what it costs, the field's known
 * signatures recognised, and the next command(s) to run: a value made from a {@link StoreHistory} ({@link #of}),
 * printed by one {@link DiagnosisPrinter} per {@code -w} format.
 */
public record Diagnosis(Facts facts, List<Resource> resources, List<Largest> largest, List<Long> writesPerTenth,
                        List<Signature> signatures, List<String> next, List<LostWindows.Window> lostWindows, Account account) {
    public static final String SCHEMA = "walkit.waldoctor.diagnose/v1";

    /**
     * What the account does not hold: the WAL store's next lease ID (it numbers leases in turn), -1 for another store;
     * and for a WAL, where its bytes sit: the snapshot prefix's end ({@code 0}: none) and the revision each of up to
     * {@link #REVISION_SAMPLES} transactions, evenly spaced, starts at ({@code [offset, revision]}), for the report's map.
     */
    public record Facts(long nextLeaseId, long prefixEnd, List<long[]> revisionsByOffset) {
        public Facts {
            revisionsByOffset = List.copyOf(revisionsByOffset);
        }
    }

    /** Points of the revisions-over-the-file line (the map's resolution: a point every few pixels). */
    static final int REVISION_SAMPLES = 400;

    /** A Kubernetes resource's share of the key space. */
    public record Resource(String name, long liveKeys, long liveBytes, long writes) {
    }

    /** One of the largest live values. */
    public record Largest(byte[] key, long bytes) {
    }

    /** A recognised signature of a known incident. */
    public record Signature(String name, String explanation) {
    }

    public Diagnosis {
        resources = List.copyOf(resources);
        largest = List.copyOf(largest);
        writesPerTenth = List.copyOf(writesPerTenth);
        signatures = List.copyOf(signatures);
        next = List.copyOf(next);
        lostWindows = List.copyOf(lostWindows);
    }

    public ExitCode exitCode() {
        return ExitCode.of(verdict());
    }

    public Assessment.Verdict verdict() {
        return account.verdict();
    }

    public List<DamageLocator.Located> damage() {
        return account.damage();
    }

    public List<Finding> findings() {
        return account.findings();
    }


    /** Diagnoses the store {@code x} tallies (a WAL's history places its transactions in the file too). */
    public static Diagnosis of(Tallies x) {
        return new Builder(x).build();
    }

    /** Works the diagnosis out of a {@link StoreHistory}. */
    private static final class Builder {
        final Tallies x;
        /** A WAL's history (transactions by offset, the file), or null for another store's tallies. */
        final StoreHistory wal;
        final List<Resource> resources = new ArrayList<>();
        final List<Largest> largest = new ArrayList<>();
        final long[] writesPerDecile = new long[10];
        final List<Signature> signatures = new ArrayList<>();
        final List<String> next = new ArrayList<>();
        final Assessment.Verdict verdict;
        final dev.walkit.format.replay.LeaseMetadata leases;

        Builder(Tallies x) {
            this.x = x;
            this.wal = x instanceof StoreHistory h && h.source().isWal() ? h : null;
            this.leases = x.leaseMetadata();
            ResourceTable byResource = new ResourceTable();
            long first = Math.max(1, x.compactRevision());
            long span = Math.max(1, x.revision() - first + 1);
            x.forEachAppliedRevision(rev -> writesPerDecile[(int) Math.min(9, Math.max(0, (rev - first) * 10 / span))]++);
            // In no order (no sort, no string per key): a key's resource is read off its bytes.
            PriorityQueue<Largest> top = new PriorityQueue<>(LARGEST.reversed());
            x.forEachKey((key, writes, live, valueLength) -> {
                long[] r = byResource.counts(key);
                r[2] += writes;
                if (live) {
                    r[0]++;
                    r[1] += valueLength;
                    if (top.size() < 5 || valueLength >= top.peek().bytes()) {
                        top.add(new Largest(key, valueLength));
                        if (top.size() > 5) top.poll();
                    }
                }
            });
            byResource.sorted().forEach((n, r) -> resources.add(new Resource(n, r[0], r[1], r[2])));
            List<Largest> big = new ArrayList<>(top);
            big.sort(LARGEST);
            largest.addAll(big);
            recognise();
            verdict = x.account().verdict();
            if (wal == null) recommendForStore();
            else recommend(verdict == Assessment.Verdict.HEALTHY, verdict == Assessment.Verdict.TORN_TAIL);
        }

        Facts facts() {
            if (wal == null) return new Facts(-1, 0, List.of());
            StoreHistory x = wal;
            int n = x.transactionCount();
            List<long[]> samples = new ArrayList<>();
            int step = Math.max(1, n / REVISION_SAMPLES);
            for (int i = 0; i < n; i += step) samples.add(new long[] {x.txnOffset(i), x.txnRevision(i)});
            if (n > 0 && (n - 1) % step != 0) samples.add(new long[] {x.txnOffset(n - 1), x.txnRevision(n - 1)});
            long prefixEnd = x.account().compactRevision() < 0 ? 0 : n > 0 ? x.txnOffset(0) : x.account().store().bytes();
            return new Facts(leases.nextLeaseId(), prefixEnd, samples);
        }

        Diagnosis build() {
            List<Long> tenths = java.util.Arrays.stream(writesPerDecile).boxed().toList();
            return new Diagnosis(facts(), resources, largest, tenths, signatures, next, wal == null ? List.of() : LostWindows.of(wal), x.account());
        }

        private void recognise() {
            for (DamageLocator.Located l : x.account().damage()) {
                DamageSpan d = l.span();
                switch (d.kind()) {
                    case CRC_RANGE_BUG -> signatures.add(new Signature("crc-range-bug",
                            d.records() + " record(s) carry CRCs over the " + d.crcRange().label() + " range: the writer bug; the data is intact"));
                    case TORN_TAIL -> signatures.add(new Signature("torn-tail-after-power-loss",
                            "the last record is cut short at the end of the file: a crash mid-append; only unsynced writes are lost"));
                    case GARBAGE_SPAN -> {
                        if (wal != null && allZero(d)) signatures.add(new Signature("zero-filled-block", d.length() + " zero bytes at offset " + d.offset()
                                + ": a lost disk block or preallocated space; the transactions in it are gone"));
                    }
                    default -> { }
                }
            }
            long regressions = x.findingCounts().getOrDefault(DamageKind.REVISION_REGRESSION, 0);
            if (regressions > 0) {
                signatures.add(new Signature("duplicated-tail", regressions + " transaction(s) repeat earlier revisions: a tail appended twice; the first occurrence wins"));
            }
            if (x.findingCounts().containsKey(DamageKind.TRUNCATED_SNAPSHOT)) {
                signatures.add(new Signature("truncated-snapshot", "a compaction's snapshot prefix lost records: keys live at the compact revision may be missing"));
            }
            if (x.leftoverCompaction() != null) {
                signatures.add(new Signature("leftover-compaction", x.leftoverCompaction() + " exists: a compaction did not finish; wal is authoritative"));
            }
        }

        private boolean allZero(DamageSpan d) {
            long len = Math.min(d.length(), 64L << 20);
            for (long off = 0; off < len; off += 1 << 20) {
                byte[] b = wal.file().read(d.offset() + off, (int) Math.min(1 << 20, len - off));
                for (byte v : b) if (v != 0) return false;
            }
            return true;
        }

        /** An etcd db or kine's state.db: the shell to look at it (walrecover rebuilds WALs, not those). */
        private void recommendForStore() {
            String p = x.source().file().toString();
            if (verdict == Assessment.Verdict.HEALTHY) {
                next.add("nothing to repair; `waldoctor shell " + p + "` to look around");
            } else {
                next.add("what could be read is above; `waldoctor shell " + p + "` to look at it (get --rev, history, diff)");
                if (x.source().etcd() != null) next.add("etcd's own copy: `etcdctl snapshot save` from a healthy member, or restore from a backup");
                if (x.source().kine() != null) {
                    // No sqlite3 command: Debian 12's (3.40) has no sqlite_dbpage, so its .recover fails on every db, and its .dump
                    // of a damaged table rolls back whole. walkit reads the rows past the damaged page itself.
                    next.add("the rows read past the damage (SQLite's shell cannot: Debian 12's sqlite3 has no .recover, and its .dump stops "
                            + "there): `waldoctor shell " + p + "` (get --rev, history, range); or restore from a backup");
                }
            }
        }

        private void recommend(boolean healthy, boolean tailOnly) {
            StoreHistory x = wal;
            String p = x.file().path().toString();
            String walrecover = dev.walkit.cli.ToolPath.of("walrecover");
            // A real place beside the store (the runbooks' STORE.recovered), not a placeholder to fill in.
            Path store = x.file().path().getFileName().toString().equals(dev.walkit.format.Wal.WAL_FILE) && x.file().path().getParent() != null
                    ? x.file().path().getParent() : x.file().path();
            String out = store + ".recovered";
            if (healthy) {
                next.add("nothing to repair; `waldoctor shell " + p + "` to look around");
                return;
            }
            boolean crcBug = signatures.stream().anyMatch(s -> s.name().equals("crc-range-bug"));
            if (crcBug) {
                String range = x.damage().stream().filter(l -> l.span().kind() == DamageKind.CRC_RANGE_BUG).findFirst().orElseThrow().span().crcRange().label();
                next.add(walrecover + " --accept-crc " + range + " --out " + out + " " + p);
                return;
            }
            if (tailOnly) {
                next.add(walrecover + " --policy tolerate-tail --out " + out + " " + p);
                return;
            }
            next.add(walrecover + " --dry-run --policy salvage " + p + "   # preview what would be lost");
            next.add(walrecover + " --policy salvage --out " + out + " --report recover.json " + p);
            next.add(walrecover + " --policy point-in-time --out " + out + " " + p + "   # or: keep only what precedes the first damage");
            next.add("if live keys vanished at a known revision R (the compaction bug): " + walrecover + " --to-revision R-1 --out " + out + " " + p);
        }
    }

    /** The largest values first; among equal sizes, in key order. */
    private static final Comparator<Largest> LARGEST = Comparator.comparingLong(Largest::bytes).reversed()
            .thenComparing(Largest::key, java.util.Arrays::compareUnsigned);
}
