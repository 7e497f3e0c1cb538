package dev.walkit.testdata;

import dev.walkit.format.Fixtures;
import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;
import dev.walkit.format.LogBuilder;
import dev.walkit.format.RecordEncoder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The logs every parity test reads (the tools agree on each; the saved index answers as a full read on each): the
 * committed fixtures, generated clean and compacted logs, every kind of damage at the first, middle and last record,
 * every rule break near the start, a third in and at the end of a plain and a compacted log, and two snapshot-prefix
 * cases. Each made when asked.
 */
public final class Corpus {
    /** A log of the corpus: its name (a test's display name) and its bytes. */
    public record Log(String name, Supplier<byte[]> bytes) {
    }

    private Corpus() {
    }

    public static List<Log> logs() throws IOException {
        List<Log> out = new ArrayList<>();
        for (String f : new String[] {"sample", "vectors/small", "vectors/small-compacted", "vectors/small-torn-tail"}) {
            out.add(new Log("fixture " + f, () -> read(f)));
        }
        byte[] clean = new K8sWalGenerator(K8sWalGenerator.Options.of(5, 96 << 10)).bytes();
        byte[] compacted = new K8sWalGenerator(new K8sWalGenerator.Options(6, 96 << 10, 3, true)).bytes();
        DamageInjector plain = new DamageInjector(clean);
        DamageInjector snap = new DamageInjector(compacted);
        out.add(new Log("generated clean", () -> clean));
        out.add(new Log("generated compacted", () -> compacted));
        int n = plain.recordCount();
        for (DamageInjector.Kind k : DamageInjector.Kind.values()) {
            for (int i : new int[] {0, n / 2, n - 1}) out.add(new Log(k + " at record " + i, () -> plain.apply(k, i, 7).log()));
        }
        int m = snap.recordCount();
        for (RuleBreak b : RuleBreak.values()) {
            for (int i : new int[] {0, 1, 2, n / 3, n - 1}) out.add(new Log(b + " at record " + i + " (plain)", () -> b.applyTo(plain, i)));
            for (int i : new int[] {0, 1, 2, m / 3, m - 1}) out.add(new Log(b + " at record " + i + " (compacted)", () -> b.applyTo(snap, i)));
        }
        byte[] k = "/k".getBytes(StandardCharsets.UTF_8);
        out.add(new Log("snapshot-flagged closing record", () -> new LogBuilder()
                .add(KeyValue.put(k, 1, 1, 1, k, 0)).add(KeyValue.put("/a".getBytes(StandardCharsets.UTF_8), 2, 2, 1, k, 0).withFlags(Flags.TXN_CONT))
                .add(KeyValue.put("/b".getBytes(StandardCharsets.UTF_8), 2, 2, 1, k, 0).withFlags(Flags.SNAPSHOT)).bytes()));
        out.add(new Log("duplicated snapshot record", () -> new LogBuilder().add(RecordEncoder.snapshotMarker(5, 1))
                .add(KeyValue.put(k, 3, 3, 1, k, 0).withFlags(Flags.SNAPSHOT)).add(KeyValue.put(k, 3, 3, 1, k, 0).withFlags(Flags.SNAPSHOT))
                .add(KeyValue.put("/z".getBytes(StandardCharsets.UTF_8), 6, 6, 1, k, 0)).bytes()));
        return out;
    }

    private static byte[] read(String fixture) {
        try {
            return Files.readAllBytes(Fixtures.path(fixture).resolve("wal"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
