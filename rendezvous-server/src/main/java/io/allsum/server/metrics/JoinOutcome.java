package io.allsum.server.metrics;

import java.util.Locale;

/** How a join was answered: the bounded values of the {@code outcome} tag of {@code allsum.rendezvous.joins}. */
public enum JoinOutcome {
    /** 200: the generation is complete. */
    COMPLETE,
    /** 202: the wait ran out first. */
    PENDING,
    /** 400: the request broke the protocol. */
    INVALID,
    /** 409: rank held by another instance, or worldSize/backend differ from the group's. */
    CONFLICT,
    /** 409: rank 0 brought the id of an earlier generation. */
    STALE_ID,
    /** 409: the generation failed while the join waited. */
    GENERATION_FAILED,
    /** 410: the group was closed while the join waited. */
    CLOSED,
    /** 503: the server holds its maximum number of groups. */
    GROUP_LIMIT;

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
