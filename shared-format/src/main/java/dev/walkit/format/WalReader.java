package dev.walkit.format;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

/**
 * Streaming reader of a v2 WAL. Each {@link #next()} yields a valid record or a damaged span;
 * together they account for every byte of the file exactly once. Validation is layered: the cheap
 * header check, then the CRC, then (at {@link ReaderOptions.Level#DECODE}) the KeyValue decode and
 * header consistency. After a failure it resyncs ({@link Resync}) and reports the span crossed.
 *
 * <p>How a span is named (docs/format.md §7 and docs/format.md of this project): by why the bytes at
 * its first offset are not a record, when the record they claim to be ends exactly where valid
 * records resume; {@code garbage-span} when it does not. A span that reaches the end of the file
 * and starts with a header cut short, or a plausible header whose record runs past the end, is a
 * {@code torn-tail}. Consecutive records whose stored CRC matches one buggy range form one
 * {@code crc-range-bug} span.
 */
public final class WalReader implements Closeable {
    private static final Object END = new Object();

    private final WalFile file;
    private final boolean ownsFile;
    private final ReaderOptions options;
    private final RecordView view = new RecordView();
    private final KvDecoder decoder = new KvDecoder();
    /** Decodes a damaged record's kv_bytes for the revision it claims (its mod_rev_offset out of range). */
    private final KvDecoder claimDecoder = new KvDecoder();
    private final KvFields claimFields = new KvFields();
    private final CRC32C crc = new CRC32C();
    private final Resync resync;
    /** Both buggy ranges: what resync also accepts until the first record validates. */
    private static final Set<CrcRange> RESYNC_RANGES = EnumSet.of(CrcRange.PAYLOAD_ONLY, CrcRange.SKIP_FLAGS);
    /** Buggy CRC ranges seen so far (or accepted). */
    private final Set<CrcRange> altRanges = EnumSet.noneOf(CrcRange.class);
    /** Whether a record validated under the standard range. */
    private boolean standardSeen;
    private long pos;
    private ByteBuffer scratchOwner;
    private ByteBuffer scratch;
    /** A result read ahead while merging crc-range-bug spans, or END. */
    private Object held;
    /** See {@link #resyncHorizon}: Long.MAX_VALUE when unset. */
    private long horizon = Long.MAX_VALUE;
    private Future<Long> beyondHorizon;

    public WalReader(WalFile file, ReaderOptions options) {
        this(file, options, false);
    }

    private WalReader(WalFile file, ReaderOptions options, boolean ownsFile) {
        this.file = file;
        this.options = options;
        this.ownsFile = ownsFile;
        this.resync = new Resync(file, Framing.v2(options.maxRecLen()));
        if (options.acceptCrc() != null) altRanges.add(options.acceptCrc());
    }

    /** Opens {@code path} read-only; the reader closes the file. */
    public static WalReader open(Path path, ReaderOptions options) throws IOException {
        return new WalReader(WalFile.open(path, options.maxRecLen()), options, true);
    }

    public WalFile file() {
        return file;
    }

    public ReaderOptions options() {
        return options;
    }

    /** File offset of the next result. */
    public long position() {
        return held == null ? pos : -1;
    }

    /** Continues reading at {@code offset} (taken as a record boundary). */
    public void seek(long offset) {
        if (offset < 0 || offset > file.size()) throw new IllegalArgumentException("offset " + offset + " outside the file");
        pos = offset;
        held = null;
    }

    /**
     * Continues reading at the first offset at or after {@code offset} where a valid record starts (what
     * resync after damage finds), for a reader that starts mid-file; returns that offset (the file size
     * when there is none). The bytes skipped are not reported.
     */
    public long resyncFrom(long offset) {
        if (offset < 0 || offset > file.size()) throw new IllegalArgumentException("offset " + offset + " outside the file");
        pos = offset == 0 ? 0 : resync.findNext(offset, altRanges);
        held = null;
        return pos;
    }

    /**
     * For a reader of a file's first part while another reads on from {@code horizon}: a resync that
     * finds no valid record before {@code horizon} takes {@code firstValidAtOrPast} (what the other
     * reader's {@link #resyncFrom}{@code (horizon)} found) instead of scanning on, so that a damaged
     * span across the horizon is scanned once. Used only while this reader resyncs over the ranges the other
     * starts with (none); otherwise, or if the future fails, this reader scans itself.
     */
    public void resyncHorizon(long horizon, Future<Long> firstValidAtOrPast) {
        this.horizon = horizon;
        this.beyondHorizon = firstValidAtOrPast;
    }

    /**
     * The buggy ranges resync accepts: those seen or accepted; both while no record has validated yet, so that a
     * log written with the crc range bug is recognised wherever its first intact record is, not only when
     * record 0 is intact (the frame found is then named {@code crc-range-bug}). Once standard records were
     * read, a damaged span is crossed at the cost of one CRC a candidate, as before.
     */
    private Set<CrcRange> resyncRanges() {
        return standardSeen || !altRanges.isEmpty() ? altRanges : RESYNC_RANGES;
    }

    private long findNext(long from) {
        Set<CrcRange> ranges = resyncRanges();
        if (beyondHorizon != null && from < horizon && ranges.isEmpty()) {
            long found = resync.findNext(from, ranges, horizon);
            if (found >= 0) return found;
            try {
                return beyondHorizon.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | CancellationException e) {
                // the other reader failed: scan on here
            }
            return resync.findNext(horizon, ranges);
        }
        return resync.findNext(from, ranges);
    }

    /** The next record or damaged span, or null at the end of the file. */
    public ReadResult next() {
        if (held != null) {
            Object h = held;
            held = null;
            return h == END ? null : (ReadResult) h;
        }
        ReadResult r = step();
        if (r instanceof DamageSpan s && s.kind() == DamageKind.CRC_RANGE_BUG) {
            DamageSpan acc = s;
            for (;;) {
                ReadResult n = step();
                if (n instanceof DamageSpan t && t.kind() == DamageKind.CRC_RANGE_BUG && t.crcRange() == acc.crcRange() && t.offset() == acc.end()) {
                    acc = acc.extend(t.length(), t.records());
                } else {
                    held = n == null ? END : n;
                    return acc;
                }
            }
        }
        return r;
    }

    private ReadResult step() {
        final long size = file.size();
        if (pos >= size) return null;
        final long start = pos;
        final long remaining = size - start;
        ByteBuffer buf = file.bufferAt(start, RecordLayout.HEADER_LENGTH);
        int idx = file.indexIn(start);
        HeaderCheck check = HeaderCheck.check(buf, idx, remaining, options.maxRecLen());
        if (check == HeaderCheck.OK) {
            int recLen = buf.getInt(idx + RecordLayout.REC_LEN_OFFSET);
            int frame = (int) RecordLayout.recordLength(recLen);
            if (!file.fitsWindow(frame) && !crcMatchesStreaming(start, recLen)) {
                // A length no CRC vouches for: never grow the window for it (no allocation from an
                // untrusted length). It is damage; resync finds where valid records resume.
                check = HeaderCheck.UNVERIFIED_LARGE;
            } else {
                // The whole record in the window (moves it when the record reaches past its end).
                buf = file.bufferAt(start, frame);
                idx = file.indexIn(start);
            }
        }
        if (buf != scratchOwner) {
            scratchOwner = buf;
            scratch = buf.duplicate();
        }
        long claimedEnd = -1;
        int stored = 0;
        int computed = 0;
        if (check == HeaderCheck.OK) {
            int recLen = buf.getInt(idx + RecordLayout.REC_LEN_OFFSET);
            long frame = RecordLayout.recordLength(recLen);
            stored = buf.getInt(idx + RecordLayout.crcOffset(recLen));
            computed = CrcRange.STANDARD.compute(crc, scratch, idx, recLen);
            if (stored == computed) return frameValid(buf, idx, start, recLen, CrcRange.STANDARD);
            for (CrcRange alt : new CrcRange[] {CrcRange.PAYLOAD_ONLY, CrcRange.SKIP_FLAGS}) {
                if (alt.compute(crc, scratch, idx, recLen) == stored) {
                    altRanges.add(alt);
                    if (alt == options.acceptCrc()) return frameValid(buf, idx, start, recLen, alt);
                    pos = start + frame;
                    return new DamageSpan(DamageKind.CRC_RANGE_BUG, start, frame,
                            "stored CRC matches the " + alt.label() + " range: data intact, CRC wrong",
                            stored & 0xFFFFFFFFL, computed & 0xFFFFFFFFL, alt, 1);
                }
            }
            claimedEnd = start + frame;
        } else if (check == HeaderCheck.UNVERIFIED_LARGE) {
            int recLen = buf.getInt(idx + RecordLayout.REC_LEN_OFFSET);
            claimedEnd = start + RecordLayout.recordLength(recLen);
            stored = file.intAt(start + RecordLayout.crcOffset(recLen));
            crc.reset();
            file.updateCrc(crc, start, start + RecordLayout.crcOffset(recLen));
            computed = (int) crc.getValue();
        } else if (check == HeaderCheck.RESERVED_FLAGS || check == HeaderCheck.OFFSETS_OUT_OF_RANGE) {
            int recLen = buf.getInt(idx + RecordLayout.REC_LEN_OFFSET);
            if (recLen >= 0) claimedEnd = start + RecordLayout.recordLength(recLen);
        }
        // Evidence first: resync moves the window.
        String headerDetail = HeaderCheck.describe(check, buf, idx, remaining, options.maxRecLen());
        long claimedRevision = -1;
        boolean claimedTxnCont = false;
        if (check == HeaderCheck.OK || check == HeaderCheck.RESERVED_FLAGS || check == HeaderCheck.OFFSETS_OUT_OF_RANGE) {
            // The claim of a record whose frame may be exact, whichever header field is off: its flags' TXN_CONT, and its
            // revision where mod_rev_offset points, else (that offset itself damaged) the mod_revision its kv_bytes decode to.
            int recLen = buf.getInt(idx + RecordLayout.REC_LEN_OFFSET);
            int modRevOffset = buf.getShort(idx + RecordLayout.MOD_REV_OFFSET_OFFSET) & 0xFFFF;
            if (recLen > 0 && RecordLayout.recordLength(recLen) <= remaining && file.fitsWindow((int) RecordLayout.recordLength(recLen))) {
                buf = file.bufferAt(start, (int) RecordLayout.recordLength(recLen));
                idx = file.indexIn(start);
                if (modRevOffset >= 1 && modRevOffset < recLen) {
                    claimedRevision = view.wrap(buf, idx, start).revision();
                } else if (claimDecoder.decode(buf, idx + RecordLayout.HEADER_LENGTH, recLen, claimFields) && claimFields.modRevision() > 0) {
                    claimedRevision = claimFields.modRevision();
                }
                claimedTxnCont = Flags.isTxnCont(buf.get(idx));
            }
        }
        long next = findNext(start + 1);
        pos = next;
        DamageKind kind;
        String detail = headerDetail;
        boolean exact = claimedEnd == next;
        switch (check) {
            case OK, UNVERIFIED_LARGE -> {
                kind = exact ? DamageKind.CRC_MISMATCH : DamageKind.GARBAGE_SPAN;
                detail = String.format("stored crc = %08x, computed crc = %08x%s", stored, computed,
                        exact ? "" : "; the record it claims ends at " + claimedEnd + ", valid records resume at " + next);
            }
            case HEADER_CUT -> kind = DamageKind.TORN_TAIL;
            case PAST_EOF -> kind = next == size ? DamageKind.TORN_TAIL : DamageKind.BAD_HEADER;
            case REC_LEN_TOO_LARGE -> kind = DamageKind.BAD_HEADER;
            default -> kind = exact ? DamageKind.BAD_HEADER : DamageKind.GARBAGE_SPAN;
        }
        boolean hasCrc = check == HeaderCheck.OK || check == HeaderCheck.UNVERIFIED_LARGE;
        DamageSpan span = new DamageSpan(kind, start, next - start, detail,
                hasCrc ? stored & 0xFFFFFFFFL : -1, hasCrc ? computed & 0xFFFFFFFFL : -1, null, 0);
        // Only a record that ends where valid records resume tells its own revision.
        return exact && claimedRevision >= 0 ? span.claiming(claimedRevision, claimedTxnCont) : span;
    }

    /** Whether any range's CRC of a record too large for the window matches, computed by streaming. */
    private boolean crcMatchesStreaming(long start, int recLen) {
        long crcAt = start + RecordLayout.crcOffset(recLen);
        int stored = file.intAt(crcAt);
        for (CrcRange r : CrcRange.values()) {
            crc.reset();
            file.updateCrc(crc, start + r.start(), crcAt);
            if ((int) crc.getValue() == stored) return true;
        }
        return false;
    }

    /** A frame whose CRC validated: decode and check consistency at DECODE level. */
    private ReadResult frameValid(ByteBuffer buf, int idx, long start, int recLen, CrcRange range) {
        long frame = RecordLayout.recordLength(recLen);
        pos = start + frame;
        if (range == CrcRange.STANDARD) standardSeen = true;
        view.wrap(buf, idx, start);
        view.crcRange(range);
        if (options.level() == ReaderOptions.Level.FRAME) return view;
        KvFields f = view.fieldsHolder();
        if (!decoder.decode(buf, idx + RecordLayout.KV_OFFSET, recLen, f)) {
            long rev = view.revision();
            return new DamageSpan(DamageKind.UNDECODABLE_PAYLOAD, start, frame, "CRC right, kv_bytes not a KeyValue: " + f.error(),
                    -1, -1, null, 1, rev, Flags.isTxnCont(view.flags()));
        }
        view.markDecoded();
        int keyOffset = view.keyOffset();
        int modRevOffset = view.modRevOffset();
        if (!f.hasKey() || f.keyOffset() != keyOffset || f.modRevOffset() != modRevOffset) {
            return new DamageSpan(DamageKind.INCONSISTENT_HEADER, start, frame,
                    "CRC right, header says key_offset " + keyOffset + ", mod_rev_offset " + modRevOffset
                            + "; kv_bytes has " + (f.hasKey() ? "the key at " + f.keyOffset() : "no key") + ", "
                            + (f.modRevOffset() >= 0 ? "mod_revision at " + f.modRevOffset() : "no mod_revision"),
                    -1, -1, null, 1, f.modRevOffset() >= 0 ? f.modRevision() : -1, Flags.isTxnCont(view.flags()));
        }
        return view;
    }

    @Override
    public void close() throws IOException {
        if (ownsFile) file.close();
    }
}
