package dev.walkit.migrate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where a follow stands, kept in the target itself, in the same transaction as what it applies: the key
 * {@code KEY} holds the source, the phase (copy: the copy at a revision is under way; follow: everything up to a
 * revision is applied) and the revision; {@code KEY/lease/ID} maps a source lease to the target's. Every follow
 * transaction compares the marker's mod_revision with the one its last transaction left, so a transaction is applied
 * once: a run killed at any moment resumes from the marker, and a second run on the same target stops. The marker is
 * deleted at the cut-over, once the target is verified equal to the source.
 */
record FollowMarker(String source, Phase phase, long revision) {
    /** The key a follow keeps its marker under unless told otherwise (--marker). */
    static final String DEFAULT_KEY = "/walkit/walmigrate/follow";
    private static final String MAGIC = "walmigrate follow v1";

    enum Phase {
        COPY, FOLLOW
    }

    byte[] encode() {
        return (MAGIC + "\nsource=" + source + "\nphase=" + phase.name().toLowerCase(java.util.Locale.ROOT) + "\nrevision=" + revision + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The marker in {@code value}; null when the value is no marker of this tool. */
    static FollowMarker decode(byte[] value) {
        String[] lines = new String(value, StandardCharsets.UTF_8).split("\n");
        if (lines.length < 4 || !lines[0].equals(MAGIC)) return null;
        String source = null;
        Phase phase = null;
        long revision = -1;
        for (String l : Arrays.asList(lines).subList(1, lines.length)) {
            int eq = l.indexOf('=');
            if (eq < 0) return null;
            String v = l.substring(eq + 1);
            try {
                switch (l.substring(0, eq)) {
                    case "source" -> source = v;
                    case "phase" -> phase = Phase.valueOf(v.toUpperCase(java.util.Locale.ROOT));
                    case "revision" -> revision = Long.parseLong(v);
                    default -> {
                        // a later version's field
                    }
                }
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return source == null || phase == null || revision < 0 ? null : new FollowMarker(source, phase, revision);
    }

    /** The key under which {@code markerKey}'s lease map is kept: {@code KEY/lease/}. */
    static byte[] leasePrefix(String markerKey) {
        return (markerKey + "/lease/").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] leaseKey(String markerKey, long sourceLease) {
        return (markerKey + "/lease/" + sourceLease).getBytes(StandardCharsets.UTF_8);
    }

    /** The source lease a lease-map key names; -1 when it names none. */
    static long sourceLease(String markerKey, byte[] key) {
        String k = new String(key, StandardCharsets.UTF_8);
        String p = markerKey + "/lease/";
        if (!k.startsWith(p)) return -1;
        try {
            return Long.parseLong(k.substring(p.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether {@code key} is the marker or one of its lease keys (not the source's data: verify passes over it). */
    static boolean owns(String markerKey, byte[] key) {
        byte[] m = markerKey.getBytes(StandardCharsets.UTF_8);
        if (Arrays.equals(key, m)) return true;
        byte[] under = (markerKey + "/").getBytes(StandardCharsets.UTF_8);
        return Migrator.startsWith(key, under);
    }
}
