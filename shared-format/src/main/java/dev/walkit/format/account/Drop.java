package dev.walkit.format.account;

import dev.walkit.format.replay.DropReason;

import java.util.List;

/**
 * A transaction replay read and did not apply: where it is, its revision, its records, the keys it would have
 * changed (their latest state is uncertain) and why.
 */
public record Drop(long offset, long revision, int records, List<byte[]> keys, DropReason reason) {
    public Drop {
        keys = List.copyOf(keys);
    }
}
