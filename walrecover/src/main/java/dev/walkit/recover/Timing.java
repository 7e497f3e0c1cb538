package dev.walkit.recover;

/** Phase times on stderr when {@code WALKIT_TIMING=1}: for benchmarks, silent otherwise. */
final class Timing {
    private static final boolean ON = "1".equals(System.getenv("WALKIT_TIMING"));
    private static long last = System.nanoTime();

    private Timing() {
    }

    static void mark(String phase) {
        long now = System.nanoTime();
        if (ON) System.err.printf("walkit timing: %-16s %7.3f s%n", phase, (now - last) / 1e9);
        last = now;
    }
}
