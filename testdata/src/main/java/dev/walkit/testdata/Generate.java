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

    @Option(names = "--damage", description = "KIND@RECORD, e.g. crc_mismatch@100, torn_tail@0, garbage_span@50; repeatable.")
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

    @Override
    public Integer call() throws Exception {
        K8sWalGenerator g = new K8sWalGenerator(new K8sWalGenerator.Options(seed, parseSize(bytes), 20, compacted));
        if (damage.isEmpty()) {
            g.write(out);
        } else {
            Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".walgen", ".tmp");
            Files.delete(tmp);
            g.write(tmp);
            byte[] log = Files.readAllBytes(tmp);
            Files.delete(tmp);
            DamageInjector inj = new DamageInjector(log);
            // Highest record first: a damage never moves the offsets of the records before it.
            java.util.List<String[]> todo = new java.util.ArrayList<>();
            for (String d : damage) todo.add(d.split("@"));
            java.util.function.ToIntFunction<String[]> recordOf = kr -> kr[0].equalsIgnoreCase("torn_tail")
                    ? inj.recordCount() - 1 : Math.min(Integer.parseInt(kr[1]), inj.recordCount() - 1);
            todo.sort(java.util.Comparator.comparingInt(recordOf).reversed());
            log = log.clone();
            for (String[] kr : todo) {
                DamageInjector.Expected e = inj.applyTo(log, DamageInjector.Kind.valueOf(kr[0].toUpperCase(java.util.Locale.ROOT)), recordOf.applyAsInt(kr), seed);
                log = e.log();
                System.err.printf("%s at offset %d, %d bytes%n", e.kind().label(), e.offset(), e.length());
            }
            Files.write(out, log, java.nio.file.StandardOpenOption.CREATE_NEW);
        }
        System.err.printf("wrote %s: %d bytes, revision %d%n", out, Files.size(out), g.revision());
        return 0;
    }
}
