package dev.walkit.format.policy;

import dev.walkit.format.replay.Replayer;

/** Keeps every complete transaction that survived; damaged bytes are skipped by resync. Writes whatever that leaves. */
public record Salvage() implements RecoveryPolicy {
    @Override
    public String label() {
        return "salvage";
    }

    @Override
    public String summary() {
        return "keeps every complete transaction that survived";
    }

    @Override
    public Replayer.Options replayOptions(long toRevision) {
        return new Replayer.Options(false, toRevision, false);
    }

    @Override
    public String refusal(Replayer replayed, long fileSize) {
        return null;
    }
}
