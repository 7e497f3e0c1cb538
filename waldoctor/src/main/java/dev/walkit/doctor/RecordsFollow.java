package dev.walkit.doctor;

import dev.walkit.cli.ExitCode;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.Wal;
import dev.walkit.format.account.WalKeys;
import dev.walkit.format.pass.Follow;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code waldoctor records PATH --follow}: a live WAL's records and damaged spans as they are appended, in the lines
 * {@code records} prints (pg_waldump --follow, tail -f), from {@code --from} (else the end as it is now), until a
 * signal or {@code --idle-exit} seconds without growth. Nothing is loaded first: the log is read as it grows
 * ({@link WalFollower}).
 */
final class RecordsFollow {
    private RecordsFollow() {
    }

    static int run(Path input, long from, double idleExitSeconds, PrintWriter out, PrintWriter err) {
        Path wal;
        long start;
        try {
            wal = Wal.resolve(input);
            start = from >= 0 ? from : Files.size(wal);
        } catch (IOException e) {
            err.println("waldoctor records: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        }
        Follow[] f = {null};
        Follow.Listener lines = new Follow.Listener() {
            @Override
            public void read(long offset, long revision) {
                if (offset < start) return;
                KeyValue kv = WalKeys.recordAt(f[0].file(), offset);
                int length = RecordLayout.OVERHEAD + f[0].file().intAt(offset + RecordLayout.REC_LEN_OFFSET);
                out.println(Commands.recordLine(offset, length, revision, kv == null ? "?" : Flags.describe(kv.flags()), kv == null ? null : kv.key()));
                out.flush();
            }

            @Override
            public void damage(DamageSpan d) {
                if (d.offset() + d.length() <= start) return;
                out.println(Commands.damageLine(d));
                out.flush();
            }

            @Override
            public void replaced(Path p, String why, long rev) {
                out.println("(" + p + ": " + why + "; following the new file past revision " + rev + ")");
                out.flush();
            }
        };
        try (dev.walkit.cli.StopOnSignal signal = new dev.walkit.cli.StopOnSignal("waldoctor-follow")) {
            // A failure after a signal exits with the failure's code, not the signal's.
            return signal.done(follow(wal, start, idleExitSeconds, lines, f, out, err, signal));
        }
    }

    private static int follow(Path wal, long start, double idleExitSeconds, Follow.Listener lines, Follow[] f, PrintWriter out, PrintWriter err,
                              dev.walkit.cli.StopOnSignal signal) {
        try (Follow follower = Follow.open(wal, lines, 5_000_000_000L)) {
            f[0] = follower;
            out.printf("(following %s from offset %d; ^C to stop)%n", wal, start);
            out.flush();
            long idle = (long) (idleExitSeconds * 1e9);
            long lastGrowth = System.nanoTime();
            while (!signal.stopped()) {
                long now = System.nanoTime();
                if (follower.poll(now) > 0) lastGrowth = now;
                if (idle > 0 && now - lastGrowth >= idle) break;
                Thread.sleep(100);
            }
            return ExitCode.OK.code();
        } catch (IOException | java.io.UncheckedIOException e) {
            err.println("waldoctor records: " + dev.walkit.cli.IoErrors.describe(e));
            return ExitCode.UNREADABLE.code();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.OK.code();
        }
    }
}
