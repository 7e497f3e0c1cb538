package dev.walkit.format.policy;

import dev.walkit.format.replay.Replayer;

/** Any damage or finding: writes nothing. */
public record Absolute() implements RecoveryPolicy {
    @Override
    public String label() {
        return "absolute";
    }

    @Override
    public String summary() {
        return "refuses any damage";
    }

    @Override
    public Replayer.Options replayOptions(long toRevision) {
        return new Replayer.Options(false, toRevision, false);
    }

    @Override
    public String refusal(Replayer replayed, long fileSize) {
        if (replayed.damage().isEmpty() && replayed.findingCounts().isEmpty()) return null;
        return "policy absolute: " + replayed.damage().size() + " damaged span(s) and " + replayed.findingTotal()
                + " finding(s); nothing written";
    }
}
