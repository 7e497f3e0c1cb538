package dev.walkit.verify;

import dev.walkit.format.Finding;
import dev.walkit.format.pass.Follow;
import dev.walkit.format.pass.Pass;
import dev.walkit.format.pass.PassReport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * {@code walverify --follow}: a live WAL verified as it grows (the pass's {@link Follow}, the one replay), each damaged span
 * and finding told as it is found, until {@code stop} says so or the file has not grown for {@code idleExitNanos};
 * then the account of all that was read, judged as the whole log's.
 */
final class FollowVerify {
    /** How often the file is looked at. */
    static final long POLL_MILLIS = 100;

    private FollowVerify() {
    }

    /** What it tells besides damage and findings: a file replaced or cut (one line each). */
    interface Notes {
        void note(String line);

        /** Once, when the file as it stood at the start has been read: the follow is on (a runbook, or a test, waits for it). */
        default void started(String line) {
        }
    }

    static PassReport run(Path input, Pass.Listener l, long idleExitNanos, long tornAfterNanos, BooleanSupplier stop, Notes notes)
            throws IOException, InterruptedException {
        int[] told = {0};
        Follow.Listener tells = new Follow.Listener() {
            @Override
            public void located(dev.walkit.format.replay.DamageLocator.Located d) {
                l.damage(d);
            }

            @Override
            public void replaced(Path p, String why, long rev) {
                notes.note(p + ": " + why + "; following the new file past revision " + rev);
            }
        };
        try (Follow f = Follow.open(input, tells, tornAfterNanos)) {
            long lastGrowth = System.nanoTime();
            boolean started = false;
            while (!stop.getAsBoolean()) {
                long now = System.nanoTime();
                if (f.poll(now) > 0) lastGrowth = now;
                if (!started) {
                    started = true;
                    notes.started("walverify: following " + f.path() + " (" + String.format("%,d", f.bytes())
                            + " bytes read); SIGINT or SIGTERM ends it with the report");
                }
                told[0] = tell(f.findings(), told[0], l);
                if (idleExitNanos > 0 && now - lastGrowth >= idleExitNanos) break;
                Thread.sleep(POLL_MILLIS);
            }
            PassReport report = f.end();
            tell(f.findings(), told[0], l);
            return report;
        }
    }

    /** The findings from {@code from} on, told; how many have been. */
    private static int tell(List<Finding> findings, int from, Pass.Listener l) {
        for (int i = from; i < findings.size(); i++) l.finding(findings.get(i));
        return findings.size();
    }
}
