package dev.walkit.migrate;

import java.util.Iterator;

/** The live keys of a source, streamed (in ascending byte order of key, unless opened unordered). */
public interface KeySource extends Iterator<SourceKey>, AutoCloseable {
    /** What the source is, for reports. */
    String describe();

    /** The source's revision (kine: the greatest row id; WAL: the replayed revision). */
    long revision();

    /** Whether {@link SourceKey#lease()} is a TTL (kine) rather than a lease ID (WAL). */
    boolean leaseIsTtl();

    /**
     * The TTL in seconds to grant for the source's lease {@code lease}: kine's lease is its TTL; an etcd db's
     * lease bucket holds each lease's granted TTL; a WAL keeps none, so {@code fallback} (--lease-ttl).
     */
    default long ttlOf(long lease, long fallback) {
        return leaseIsTtl() ? lease : fallback;
    }

    @Override
    void close() throws java.io.IOException;

    /** What walmigrate's gate said of the source when it was opened (the pass's verdict): healthy unless told otherwise. */
    default SourceGate.Said gate() {
        return SourceGate.Said.HEALTHY;
    }

    /** The keys {@code keys} gives, as a source of {@code revision} with a WAL's lease IDs (held in memory: nothing to close). */
    static KeySource of(String describe, long revision, java.util.Iterator<SourceKey> keys) {
        return new KeySource() {
            @Override
            public boolean hasNext() {
                return keys.hasNext();
            }

            @Override
            public SourceKey next() {
                return keys.next();
            }

            @Override
            public String describe() {
                return describe;
            }

            @Override
            public long revision() {
                return revision;
            }

            @Override
            public boolean leaseIsTtl() {
                return false;
            }

            @Override
            public void close() {
            }
        };
    }

    /** A source that is {@code in} with something changed: everything not overridden is {@code in}'s; closing it closes {@code in}. */
    abstract class Forwarding implements KeySource {
        final KeySource in;

        Forwarding(KeySource in) {
            this.in = in;
        }

        @Override
        public boolean hasNext() {
            return in.hasNext();
        }

        @Override
        public SourceKey next() {
            return in.next();
        }

        @Override
        public String describe() {
            return in.describe();
        }

        @Override
        public long revision() {
            return in.revision();
        }

        @Override
        public boolean leaseIsTtl() {
            return in.leaseIsTtl();
        }

        @Override
        public long ttlOf(long lease, long fallback) {
            return in.ttlOf(lease, fallback);
        }

        @Override
        public SourceGate.Said gate() {
            return in.gate();
        }

        @Override
        public void close() throws java.io.IOException {
            in.close();
        }
    }

    /** {@code in}, as walmigrate's gate let it through ({@code said}); closing it closes {@code in}. */
    static KeySource gated(KeySource in, SourceGate.Said said) {
        return new Forwarding(in) {
            @Override
            public SourceGate.Said gate() {
                return said;
            }
        };
    }

    /** {@code in}'s keys under {@code prefix} only (closing it closes {@code in}). */
    static KeySource under(KeySource in, byte[] prefix) {
        if (prefix.length == 0) return in;
        return filter(in, key -> Migrator.startsWith(key, prefix));
    }

    /** The keys of {@code in} that {@code keep} takes, in order (closed with {@code in}). */
    static KeySource filter(KeySource in, java.util.function.Predicate<byte[]> keep) {
        return new Forwarding(in) {
            private SourceKey next;

            @Override
            public boolean hasNext() {
                while (next == null && in.hasNext()) {
                    SourceKey k = in.next();
                    if (keep.test(k.key())) next = k;
                }
                return next != null;
            }

            @Override
            public SourceKey next() {
                if (!hasNext()) throw new java.util.NoSuchElementException();
                SourceKey k = next;
                next = null;
                return k;
            }
        };
    }
}
