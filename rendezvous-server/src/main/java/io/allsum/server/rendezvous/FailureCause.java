package io.allsum.server.rendezvous;

import java.util.Locale;

/** Why a generation failed: the bounded values of the {@code cause} tag of {@code allsum.rendezvous.generations.failed}. */
public enum FailureCause {
    /** A member of a complete generation stopped heartbeating. */
    HEARTBEAT_TIMEOUT,
    /** A member reported a rank failed. */
    REPORTED_FAILURE,
    /** The generation was not complete by its join deadline. */
    JOIN_DEADLINE,
    /** A member of a complete generation left. */
    MEMBER_LEFT;

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
