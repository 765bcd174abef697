package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;

import java.util.Locale;

/** How a join was answered: the bounded values of the {@code outcome} tag of {@code allsum.rendezvous.joins}. */
public enum JoinMeterOutcome {
    /** 200: the generation is complete. */
    COMPLETE,
    /** 202: the wait ran out first. */
    PENDING,
    /** 400 (and 404, 413, 415): the request broke the protocol. */
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

    /** The outcome of a join answered with this HTTP status and problem code (null for success answers). */
    public static JoinMeterOutcome of(int status, ProblemCode code) {
        if (status == 200) {
            return COMPLETE;
        }
        if (status == 202) {
            return PENDING;
        }
        ProblemCode known = code != null ? code : ProblemCode.forStatus(status);
        return switch (known) {
            case RANK_HELD, WORLD_SIZE_MISMATCH, BACKEND_MISMATCH, NOT_A_MEMBER -> CONFLICT;
            case STALE_UNIQUE_ID -> STALE_ID;
            case GENERATION_FAILED -> GENERATION_FAILED;
            case GROUP_CLOSED -> CLOSED;
            case GROUP_LIMIT -> GROUP_LIMIT;
            default -> INVALID;
        };
    }
}
