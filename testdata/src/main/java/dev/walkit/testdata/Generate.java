package dev.walkit.testdata;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Command line of the generator: {@code Generate --out wal --bytes 1g [--seed S] [--compacted] [--damage KIND@RECORD]...}. */
@Command(name = "walgen", mixinStandardHelpOptions = true, description = "Write a Kubernetes-shaped v2 WAL, optionally damaged.")
public final class Generate implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "The WAL file to create (must not exist).")
    Path out;

    @Option(names = "--bytes", defaultValue = "1m", description = "Target size, e.g. 64m, 2g (default ${DEFAULT-VALUE}).")
    String bytes;

    @Option(names = "--seed", defaultValue = "1")
    long seed;

    @Option(names = "--compacted", description = "Start with a snapshot prefix.")
    boolean compacted;

    @Option(names = "--damage", description = "KIND@RECORD, e.g. crc_mismatch@100, torn_tail@0, garbage_span@50, duplicated_record@70; repeatable.")
    java.util.List<String> damage = new java.util.ArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new Generate()).execute(args));
    }

    static long parseSize(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        long mul = 1;
        if (t.endsWith("k")) mul = 1L << 10;
        else if (t.endsWith("m")) mul = 1L << 20;
        else if (t.endsWith("g")) mul = 1L << 30;
        if (mul != 1) t = t.substring(0, t.length() - 1);
        return Long.parseLong(t) * mul;
    }

    /** A damage asked for: its kind and the record it falls on. */
    private record Asked(DamageInjector.Kind kind, long record) {
    }

    private java.util.List<Asked> asked() {
        java.util.List<Asked> out = new java.util.ArrayList<>();
        for (String d : damage) {
            String[] kr = d.split("@");
            DamageInjector.Kind k = DamageInjector.Kind.valueOf(kr[0].toUpperCase(java.util.Locale.ROOT));
            out.add(new Asked(k, k == DamageInjector.Kind.TORN_TAIL ? Long.MAX_VALUE : Long.parseLong(kr[1])));
        }
        return out;
    }

    /** The crc range bug rewrites every record: the whole log in memory (under 2 GiB). */
    private void inMemory(Path clean) throws java.io.IOException {
        byte[] log = Files.readAllBytes(clean);
        DamageInjector inj = new DamageInjector(log);
        // Highest record first: a damage never moves the offsets of the records before it.
        java.util.List<Asked> todo = asked();
        todo.sort(java.util.Comparator.comparingLong(Asked::record).reversed());
        log = log.clone();
        for (Asked a : todo) {
            DamageInjector.Expected e = inj.applyTo(log, a.kind(), (int) Math.min(a.record(), inj.recordCount() - 1), seed);
            log = e.log();
            System.err.printf("%s at offset %d, %d bytes%n", e.kind().label(), e.offset(), e.length());
        }
        Files.write(out, log, java.nio.file.StandardOpenOption.CREATE_NEW);
    }

    /**
     * Every other kind changes one record: the clean log is copied through the kernel, and only each
     * damaged record is read, damaged (a {@link DamageInjector} over that record alone) and written in its
     * place. Any size, in little memory: a 2 GiB log does not fit a Java array.
     */
    private void spliced(Path clean) throws java.io.IOException {
        java.util.List<Asked> todo = asked();
        todo.sort(java.util.Comparator.comparingLong(Asked::record));
        // Offsets and lengths of the records asked for (the last record stands for the torn tail).
        java.util.Map<Long, long[]> where = new java.util.HashMap<>();
        long count = 0;
        long[] last = null;
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(clean)) {
            java.util.Set<Long> wanted = new java.util.HashSet<>();
            // A duplicated record is the first transaction of one at or after the record asked for.
            java.util.List<Long> duplicates = new java.util.ArrayList<>();
            for (Asked a : todo) {
                if (a.kind() == DamageInjector.Kind.DUPLICATED_RECORD) duplicates.add(a.record());
                else wanted.add(a.record());
            }
            boolean prevCont = false;
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(dev.walkit.format.RecordLayout.HEADER_LENGTH).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (long pos = 0; pos < in.size(); count++) {
                h.clear();
                while (h.hasRemaining()) in.read(h, pos + h.position());
                long len = dev.walkit.format.RecordLayout.OVERHEAD + h.getInt(dev.walkit.format.RecordLayout.REC_LEN_OFFSET);
                last = new long[] {pos, len};
                if (wanted.contains(count)) where.put(count, last);
                int flags = h.get(dev.walkit.format.RecordLayout.FLAGS_OFFSET);
                if (!prevCont && !dev.walkit.format.Flags.isTxnCont(flags) && !dev.walkit.format.Flags.isSnapshot(flags)) {
                    for (java.util.Iterator<Long> it = duplicates.iterator(); it.hasNext(); ) {
                        long asked = it.next();
                        if (asked <= count) {
                            where.put(asked, last);
                            it.remove();
                        }
                    }
                }
                prevCont = dev.walkit.format.Flags.isTxnCont(flags);
                pos += len;
            }
            try (java.nio.channels.FileChannel o = java.nio.channels.FileChannel.open(out, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE)) {
                long copied = 0; // clean bytes consumed
                long shift = 0; // output offset minus input offset
                for (Asked a : todo) {
                    long[] r = where.containsKey(a.record()) ? where.get(a.record()) : a.record() >= count ? last : null;
                    if (r == null) throw new IllegalArgumentException("no transaction of one record at or after record " + a.record());
                    if (r[0] < copied) throw new IllegalArgumentException("two damages on one record: " + damage);
                    copy(in, copied, r[0] - copied, o);
                    byte[] rec = new byte[(int) r[1]];
                    java.nio.ByteBuffer rb = java.nio.ByteBuffer.wrap(rec);
                    while (rb.hasRemaining()) in.read(rb, r[0] + rb.position());
                    DamageInjector.Expected e = new DamageInjector(rec).apply(a.kind(), 0, seed);
                    o.write(java.nio.ByteBuffer.wrap(e.log()));
                    System.err.printf("%s at offset %d, %d bytes%n", e.kind().label(), r[0] + shift + e.offset(), e.length());
                    shift += e.log().length - r[1];
                    copied = r[0] + r[1];
                }
                copy(in, copied, in.size() - copied, o);
                o.force(true);
            }
        }
    }

    private static void copy(java.nio.channels.FileChannel in, long from, long length, java.nio.channels.FileChannel to) throws java.io.IOException {
        for (long done = 0; done < length; ) done += in.transferTo(from + done, length - done, to);
    }

    @Override
    public Integer call() throws Exception {
        K8sWalGenerator g = new K8sWalGenerator(new K8sWalGenerator.Options(seed, parseSize(bytes), 20, compacted));
        if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent()); // as --out DIR/wal is meant
        if (damage.isEmpty()) {
            g.write(out);
        } else {
            Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".walgen", ".tmp");
            Files.delete(tmp);
            g.write(tmp);
            try {
                if (damage.stream().anyMatch(d -> d.toLowerCase(java.util.Locale.ROOT).startsWith("crc_range_bug"))) {
                    inMemory(tmp);
                } else {
                    spliced(tmp);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        System.err.printf("wrote %s: %d bytes, revision %d%n", out, Files.size(out), g.revision());
        return 0;
    }
}
