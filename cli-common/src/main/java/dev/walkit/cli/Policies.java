package dev.walkit.cli;

import dev.walkit.format.policy.RecoveryPolicy;

/** {@code --policy} as walrecover and walmigrate take it: the labels of {@link RecoveryPolicy#ALL}, parsed and completed. */
public final class Policies {
    private Policies() {
    }

    /** Completion's values: every policy's label. */
    public static final class Labels extends Candidates {
        public Labels() {
            super(RecoveryPolicy.labels());
        }
    }

    /** A label to its policy; anything else a one-line usage error naming the policies. */
    public static final class Parse extends Converter<RecoveryPolicy> {
        @Override
        protected RecoveryPolicy parse(String s) {
            return RecoveryPolicy.fromLabel(s);
        }
    }
}
