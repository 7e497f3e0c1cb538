package dev.walkit.testdata;

import dev.walkit.format.Flags;
import dev.walkit.format.KeyValue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * A broken replay rule (docs/format.md §5, §6), made by re-encoding one record of a valid log with a
 * right CRC ({@link DamageInjector#reencoded}): not damage, but what replay must find or drop.
 */
public enum RuleBreak {
    VERSION_PLUS_ONE(kv -> kv.isDelete() ? kv : new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version() + 1, kv.value(), kv.lease())),
    CREATE_REVISION_ZERO(kv -> kv.isDelete() ? kv : new KeyValue(kv.flags(), kv.key(), 0, kv.modRevision(), kv.version(), kv.value(), kv.lease())),
    DELETE_OF_ABSENT_KEY(kv -> KeyValue.delete("/registry/never/was".getBytes(StandardCharsets.UTF_8), kv.modRevision()).withFlags(kv.flags() | Flags.DELETE)),
    REVISION_ONE(kv -> new KeyValue(kv.flags(), kv.key(), kv.createRevision(), 1, kv.version(), kv.value(), kv.lease())),
    TXN_CONT_ADDED(kv -> kv.withFlags(kv.flags() | Flags.TXN_CONT)),
    TXN_CONT_REMOVED(kv -> kv.withFlags(kv.flags() & ~Flags.TXN_CONT)),
    SNAPSHOT_FLAG(kv -> kv.withFlags(kv.flags() | Flags.SNAPSHOT)),
    SNAPSHOT_FLAG_REMOVED(kv -> kv.withFlags(kv.flags() & ~Flags.SNAPSHOT)),
    MARKER_COUNT_PLUS_ONE(kv -> kv.key().length == 0 && kv.value().length == 8
            ? new KeyValue(kv.flags(), kv.key(), kv.createRevision(), kv.modRevision(), kv.version(),
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ByteBuffer.wrap(kv.value()).order(ByteOrder.LITTLE_ENDIAN).getLong() + 1).array(),
                    kv.lease())
            : kv);

    private final UnaryOperator<KeyValue> change;

    RuleBreak(UnaryOperator<KeyValue> change) {
        this.change = change;
    }

    /** The log of {@code records} with its record {@code i} changed to break this rule. */
    public byte[] applyTo(DamageInjector records, int i) {
        return records.reencoded(i, change);
    }
}
