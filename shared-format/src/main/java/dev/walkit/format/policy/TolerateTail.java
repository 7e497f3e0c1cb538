package dev.walkit.format.policy;

import dev.walkit.format.assess.Assessment;
import dev.walkit.format.DamageKind;
import dev.walkit.format.DamageSpan;
import dev.walkit.format.Finding;
import dev.walkit.format.replay.Replayer;

/** Drops damage at the tail (a torn write); damage anywhere else: writes nothing. */
public record TolerateTail() implements RecoveryPolicy {
    @Override
    public String label() {
        return "tolerate-tail";
    }

    @Override
    public String summary() {
        return "drops only damage at the tail";
    }

    @Override
    public Replayer.Options replayOptions(long toRevision) {
        return new Replayer.Options(false, toRevision, false);
    }

    @Override
    public String refusal(Replayer replayed, long fileSize) {
        long tail = Assessment.of(replayed.damage(), replayed.findings(), fileSize).tailStart();
        for (DamageSpan d : replayed.damage()) {
            if (d.offset() < tail) {
                return "policy tolerate-tail: " + d.kind().label() + " at offset " + d.offset() + " is not at the tail (a valid record follows it); "
                        + "nothing written (--policy salvage keeps every complete transaction around it)";
            }
        }
        for (Finding f : replayed.findings()) {
            if (f.kind() == DamageKind.INCOMPLETE_TRANSACTION && f.offset() < tail) {
                return "policy tolerate-tail: an incomplete transaction at offset " + f.offset() + " is not at the tail; nothing written "
                        + "(--policy salvage keeps every complete transaction around it)";
            }
        }
        return null;
    }
}
