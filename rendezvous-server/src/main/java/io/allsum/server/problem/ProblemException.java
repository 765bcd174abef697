package io.allsum.server.problem;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A request that cannot be served, in the one error contract of the server (shared-model's {@link ProblemCode}):
 * the code, this occurrence's detail, the violations of an invalid request and when a retry can succeed. It holds
 * no wire types; the web layer answers it as an RFC 9457 problem, the same shape whichever feature threw it.
 */
public class ProblemException extends RuntimeException {

    private final ProblemCode code;
    private final String detail;
    private final List<Violation> violations;
    private volatile Duration retryAfter;

    public ProblemException(ProblemCode code, String detail) {
        this(code, detail, null);
    }

    public ProblemException(ProblemCode code, String detail, Throwable cause) {
        this(code, detail, List.of(), cause);
    }

    private ProblemException(ProblemCode code, String detail, List<Violation> violations, Throwable cause) {
        super(code.wireCode() + ": " + detail, cause);
        this.code = code;
        this.detail = detail;
        this.violations = List.copyOf(violations);
    }

    public ProblemCode code() {
        return code;
    }

    /** This occurrence, for humans; the code's title names the kind. */
    public String detail() {
        return detail;
    }

    /** The broken rules of an invalid request; empty for every other problem. */
    public List<Violation> violations() {
        return violations;
    }

    /** The earliest time a retry can succeed, when there is one. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** Sets when a retry can succeed (answered as {@code Retry-After}). */
    public ProblemException retryAfter(Duration delay) {
        this.retryAfter = delay;
        return this;
    }

    /** 400 invalid-request naming every violation; {@code detail} joins them for humans. */
    public static ProblemException invalid(List<Violation> violations) {
        return new ProblemException(ProblemCode.INVALID_REQUEST, describe(violations), violations, null);
    }

    public static ProblemException invalid(String field, String message) {
        return invalid(new Violation(field, message));
    }

    public static ProblemException invalid(Violation violation) {
        return invalid(List.of(violation));
    }

    /** The {@code detail} of an invalid request: "field: message; field: message". */
    public static String describe(List<Violation> violations) {
        return String.join("; ", violations.stream().map(Violation::toString).toList());
    }
}
