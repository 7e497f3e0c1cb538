package dev.walkit.testdata;

import java.nio.file.Path;

/** {@code GenerateKine OUT.db STEPS [SEED]}: a kine database for benchmarks; prints the live key count. */
public final class GenerateKine {
    private GenerateKine() {
    }

    public static void main(String[] args) throws Exception {
        KineDbGenerator g = new KineDbGenerator(KineDbGenerator.Options.of(args.length > 2 ? Long.parseLong(args[2]) : 1, Integer.parseInt(args[1])));
        g.write(Path.of(args[0]));
        System.out.println(g.live().size());
    }
}
