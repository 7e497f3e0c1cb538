package dev.walkit.format.policy;

import dev.walkit.format.replay.Replayer;

/** Keeps everything before the first damage (or the first inconsistency of a snapshot prefix) and drops the rest. */
public record PointInTime() implements RecoveryPolicy {
    @Override
    public String label() {
        return "point-in-time";
    }

    @Override
    public String summary() {
        return "keeps everything before the first damage";
    }

    @Override
    public Replayer.Options replayOptions(long toRevision) {
        return new Replayer.Options(false, toRevision, true);
    }

    @Override
    public String refusal(Replayer replayed, long fileSize) {
        return null;
    }
}
