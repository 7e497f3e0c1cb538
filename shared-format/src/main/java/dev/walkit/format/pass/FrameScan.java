package dev.walkit.format.pass;

import dev.walkit.format.CrcRange;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordView;
import dev.walkit.format.scan.SplitScan;
import dev.walkit.format.WalFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The frame and decode levels on both cores ({@link SplitScan}, a record a unit): the later part keeps what it
 * read in order, runs of valid records and damaged spans, and is joined by handing them on after the first
 * part's. A crc range bug seen in the first part, or a CRC range accepted, changes how resync reads on: the first
 * part then reads on by itself. Either way the report is the one a single pass makes.
 */
final class FrameScan {
    /** What one pass sees, in order: records summarised as runs, and damaged spans. */
    interface Sink {
        void records(long count, long transactions, long firstRevision, long lastRevision, long maxRevision);

        void damage(DamageSpan d);
    }

    private record Run(long count, long transactions, long firstRevision, long lastRevision, long maxRevision) {
    }

    private FrameScan() {
    }

    /**
     * Reads {@code file} and reports to {@code sink} in file order; {@code compactRevision} receives the
     * revision of a snapshot marker at offset 0. Files of {@code minSplit} bytes or more are read in two parts.
     */
    static SplitScan.Outcome scan(WalFile file, ReaderOptions ro, Sink sink, LongConsumer compactRevision, long minSplit) throws IOException {
        Part first = new Part(sink, compactRevision);
        SplitScan.Outcome o = SplitScan.scan(file, ro, first, new Parts(ro.acceptCrc()), 0.5, minSplit, "walverify-second-half");
        first.flush();
        return o;
    }

    /** A part: consecutive records gathered into runs for its sink. */
    private static final class Part implements SplitScan.Part {
        private final Sink sink;
        private final LongConsumer compactRevision;
        /** The later part's results, handed on at the join. */
        final List<Object> events;
        boolean rangeBug;
        private long count;
        private long transactions;
        private long first;
        private long last;
        private long max;

        Part(Sink sink, LongConsumer compactRevision) {
            this.sink = sink;
            this.compactRevision = compactRevision;
            this.events = null;
        }

        /** A later part: keeps its results. */
        Part() {
            this.events = new ArrayList<>();
            this.compactRevision = null;
            this.sink = new Sink() {
                @Override
                public void records(long count, long transactions, long firstRevision, long lastRevision, long maxRevision) {
                    events.add(new Run(count, transactions, firstRevision, lastRevision, maxRevision));
                }

                @Override
                public void damage(DamageSpan d) {
                    events.add(d);
                }
            };
        }

        @Override
        public boolean take(ReadResult x) {
            if (x instanceof RecordView v) {
                long rev = v.revision();
                if (v.offset() == 0 && compactRevision != null && v.isSnapshot()) compactRevision.accept(rev);
                if (count == 0) {
                    first = rev;
                    max = rev;
                }
                count++;
                if (!v.isTxnCont()) transactions++;
                last = rev;
                if (rev > max) max = rev;
            } else {
                DamageSpan d = (DamageSpan) x;
                rangeBug |= d.kind() == DamageKind.CRC_RANGE_BUG;
                flush();
                sink.damage(d);
            }
            return true;
        }

        void flush() {
            if (count > 0) sink.records(count, transactions, first, last, max);
            count = 0;
            transactions = 0;
        }
    }

    /** The frame scan's parts: a record is a unit. */
    private record Parts(CrcRange acceptCrc) implements SplitScan.Parts<Part> {
        @Override
        public Part later() {
            return new Part();
        }

        @Override
        public boolean endsUnit(RecordView v) {
            return true;
        }

        @Override
        public SplitScan.Join join(Part first, Part later) {
            if (first.rangeBug || acceptCrc != null) return SplitScan.Join.READ_ON;
            later.flush();
            first.flush();
            for (Object e : later.events) {
                if (e instanceof Run r) first.sink.records(r.count(), r.transactions(), r.firstRevision(), r.lastRevision(), r.maxRevision());
                else first.sink.damage((DamageSpan) e);
            }
            return SplitScan.Join.JOINED;
        }

        @Override
        public boolean stopsTheFirst(Part later) {
            return false;
        }

        @Override
        public void stopped(Part first, Part later) {
        }
    }
}
