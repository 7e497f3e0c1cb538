package dev.walkit.format.policy;

import dev.walkit.format.replay.Replayer;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A recovery policy of docs/format.md §9, named after RocksDB's WAL recovery modes: the replay it runs and
 * whether it writes what that replay kept. "Damage" is a damaged byte span or an incomplete transaction; the
 * tail is the damage after which no complete transaction follows ({@link dev.walkit.format.assess.Assessment}).
 * A new policy is one file that implements this interface, and a line in {@link #ALL}: walrecover's --policy values,
 * their help and completion, and the tests that go through every policy take it from there.
 */
public sealed interface RecoveryPolicy permits Salvage, PointInTime, TolerateTail, Absolute {
    /** Every policy, the default first. */
    List<RecoveryPolicy> ALL = List.of(new Salvage(), new PointInTime(), new TolerateTail(), new Absolute());

    /** Its name on the command line and in reports. */
    String label();

    /** What it keeps, in words after its label ("keeps every complete transaction that survived"): help text is made of these. */
    String summary();

    /** The replay it runs, applying transactions up to {@code toRevision}. */
    Replayer.Options replayOptions(long toRevision);

    /** Whether its replay of a whole log is the rules' own (what every pass replays): then one replay serves both. */
    default boolean replaysAsTheRules() {
        return replayOptions(Long.MAX_VALUE).equals(Replayer.Options.defaults());
    }

    /**
     * Why it writes nothing of {@code replayed} (the replay it ran over a log of {@code fileSize} bytes), in
     * one line that starts with "policy LABEL: "; null when it writes what replay kept.
     */
    String refusal(Replayer replayed, long fileSize);

    /** The policy called {@code label}. */
    static RecoveryPolicy fromLabel(String label) {
        for (RecoveryPolicy p : ALL) {
            if (p.label().equals(label)) return p;
        }
        throw new IllegalArgumentException("'" + label + "' is not a policy (" + labels(", ") + ")");
    }

    /** The labels of every policy, in order. */
    static java.util.List<String> labels() {
        return ALL.stream().map(RecoveryPolicy::label).toList();
    }

    /** Every policy with its summary, the default marked: the help's sentence, made from {@link #ALL}. */
    static String describeAll() {
        return ALL.stream().map(p -> p.label() + (p == ALL.get(0) ? " (default) " : " ") + p.summary()).collect(Collectors.joining("; "));
    }

    /** The labels of every policy, joined by {@code separator}. */
    static String labels(String separator) {
        return ALL.stream().map(RecoveryPolicy::label).collect(Collectors.joining(separator));
    }
}
