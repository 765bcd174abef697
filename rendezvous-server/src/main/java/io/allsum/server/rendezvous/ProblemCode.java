package io.allsum.server.rendezvous;

import org.springframework.http.HttpStatus;

/**
 * Machine-readable kinds of rendezvous errors. Each travels as the {@code code} member of the ProblemDetail, so a
 * client can tell "re-join" (generation-failed) from "fix your configuration" (world-size-mismatch).
 */
public enum ProblemCode {
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "Invalid request", "invalid-request"),
    UNKNOWN_GROUP(HttpStatus.NOT_FOUND, "Unknown group", "unknown-group"),
    RANK_HELD(HttpStatus.CONFLICT, "Rank held by another instance", "rank-held"),
    WORLD_SIZE_MISMATCH(HttpStatus.CONFLICT, "World size differs from the group's", "world-size-mismatch"),
    BACKEND_MISMATCH(HttpStatus.CONFLICT, "Backend differs from the group's", "backend-mismatch"),
    STALE_UNIQUE_ID(HttpStatus.CONFLICT, "Stale unique id", "stale-unique-id"),
    NOT_A_MEMBER(HttpStatus.CONFLICT, "Not a member of the generation", "not-a-member"),
    GENERATION_FAILED(HttpStatus.CONFLICT, "Generation failed", "generation-failed"),
    GROUP_CLOSED(HttpStatus.GONE, "Group closed", "group-closed"),
    GROUP_LIMIT(HttpStatus.SERVICE_UNAVAILABLE, "Group limit reached", "group-limit");

    private final HttpStatus status;
    private final String title;
    private final String wireCode;

    ProblemCode(HttpStatus status, String title, String wireCode) {
        this.status = status;
        this.title = title;
        this.wireCode = wireCode;
    }

    public HttpStatus status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String wireCode() {
        return wireCode;
    }
}
