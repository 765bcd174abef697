package io.allsum.model.problem;

import java.util.Locale;
import java.util.Optional;

/**
 * The machine-readable kind of every error the server answers, shared by server and clients. It travels as the
 * {@code code} member of the RFC 9457 problem; clients branch on it, never on the human {@code title}.
 * {@link #wireCode()} values never change meaning; new ones may be added, so a client must accept unknown codes.
 */
public enum ProblemCode {
    // ---- any endpoint
    INVALID_REQUEST(400, "Invalid request"),
    UNAUTHORIZED(401, "Unauthorized"),
    NOT_FOUND(404, "Not Found"),
    METHOD_NOT_ALLOWED(405, "Method Not Allowed"),
    NOT_ACCEPTABLE(406, "Not Acceptable"),
    REQUEST_TIMEOUT(408, "Request Timeout"),
    BODY_TOO_LARGE(413, "Request body too large"),
    UNSUPPORTED_MEDIA_TYPE(415, "Unsupported Media Type"),
    CONFLICT(409, "Conflict"),
    GONE(410, "Gone"),
    TOO_MANY_REQUESTS(429, "Too Many Requests"),
    SERVICE_UNAVAILABLE(503, "Service Unavailable"),
    INTERNAL_ERROR(500, "Internal server error"),
    /** A worker's job relay (or a proxy) got no answer from the server it forwards to. */
    BAD_GATEWAY(502, "Bad Gateway"),
    /** As {@link #BAD_GATEWAY}, past the relay's deadline. */
    GATEWAY_TIMEOUT(504, "Gateway Timeout"),
    // ---- rendezvous
    UNKNOWN_GROUP(404, "Unknown group"),
    RANK_HELD(409, "Rank held by another instance"),
    WORLD_SIZE_MISMATCH(409, "World size differs from the group's"),
    BACKEND_MISMATCH(409, "Backend differs from the group's"),
    STALE_UNIQUE_ID(409, "Stale unique id"),
    NOT_A_MEMBER(409, "Not a member of the generation"),
    GENERATION_FAILED(409, "Generation failed"),
    GROUP_CLOSED(410, "Group closed"),
    GROUP_LIMIT(503, "Group limit reached"),
    // ---- jobs
    UNKNOWN_JOB(404, "Unknown job"),
    JOB_CONFLICT(409, "Job conflict"),
    TOO_MANY_JOBS(429, "Too many unfinished jobs");

    private final int status;
    private final String title;
    private final String wireCode;

    ProblemCode(int status, String title) {
        this.status = status;
        this.title = title;
        this.wireCode = name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The HTTP status this kind of problem is answered with. */
    public int status() {
        return status;
    }

    /** The problem's {@code title}: the same for every occurrence; the {@code detail} tells this one. */
    public String title() {
        return title;
    }

    /** The {@code code} member on the wire, in kebab case ({@code rank-held}). */
    public String wireCode() {
        return wireCode;
    }

    /** The code for a wire value; empty for null or a code this version does not know. */
    public static Optional<ProblemCode> fromWire(String wireCode) {
        if (wireCode == null) {
            return Optional.empty();
        }
        for (ProblemCode code : values()) {
            if (code.wireCode.equals(wireCode)) {
                return Optional.of(code);
            }
        }
        return Optional.empty();
    }

    /** The generic code for an HTTP error status that carried no code (a proxy's answer, Tomcat's own). */
    public static ProblemCode forStatus(int status) {
        return switch (status) {
            case 400 -> INVALID_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 408 -> REQUEST_TIMEOUT;
            case 413 -> BODY_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 409 -> CONFLICT;
            case 410 -> GONE;
            case 429 -> TOO_MANY_REQUESTS;
            case 502 -> BAD_GATEWAY;
            case 503 -> SERVICE_UNAVAILABLE;
            case 504 -> GATEWAY_TIMEOUT;
            default -> status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
        };
    }
}
