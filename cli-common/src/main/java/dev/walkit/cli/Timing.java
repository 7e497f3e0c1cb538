package dev.walkit.cli;

/** Phase times on stderr when {@code WALKIT_TIMING=1}: for benchmarks, silent otherwise. */
public final class Timing {
    private static final boolean ON = "1".equals(System.getenv("WALKIT_TIMING"));
    private static long last = System.nanoTime();

    private Timing() {
    }

    /** Prints the time since the previous mark (or since this class was loaded) and since the JVM started. */
    public static void mark(String phase) {
        long now = System.nanoTime();
        if (ON) {
            double sinceStart = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
            System.err.printf("walkit timing: %-16s %7.3f s  (%.3f s since the JVM started)%n", phase, (now - last) / 1e9, sinceStart);
        }
        last = now;
    }
}
