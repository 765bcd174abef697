package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;
import io.allsum.web.CodedProblemAdvice;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A request that cannot be served, in the one error contract of the server (shared-model's
 * {@link ProblemCode}): Spring MVC renders it as an RFC 9457 problem with {@code status}, {@code title} (the code's),
 * {@code detail} (this occurrence), {@code code} and, for invalid requests, {@code violations}. Any feature throws
 * it and the client sees the same shape.
 */
public class ProblemException extends ErrorResponseException {

    private final ProblemCode code;

    public ProblemException(ProblemCode code, String detail) {
        this(code, detail, null);
    }

    public ProblemException(ProblemCode code, String detail, Throwable cause) {
        super(HttpStatus.valueOf(code.status()), problem(code, detail), cause);
        this.code = code;
    }

    public ProblemCode code() {
        return code;
    }

    /** Adds a {@code Retry-After} header: the earliest time a retry can succeed, in whole seconds (at least 1). */
    public ProblemException retryAfter(Duration delay) {
        long seconds = Math.max(1, (delay.toMillis() + 999) / 1000);
        getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        return this;
    }

    /** 400 invalid-request naming every violation; {@code detail} joins them for humans. */
    public static ProblemException invalid(List<Violation> violations) {
        ProblemException e = new ProblemException(ProblemCode.INVALID_REQUEST, describe(violations));
        withViolations(e.getBody(), violations);
        return e;
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

    /** Sets the {@code violations} member: a list of {@code {field, message}} objects. */
    public static void withViolations(ProblemDetail problem, List<Violation> violations) {
        problem.setProperty("violations", violations.stream()
                .map(v -> Map.of("field", v.field(), "message", v.message()))
                .toList());
    }

    /** A problem of {@code code} with this detail: title and {@code code} member from the code. */
    public static ProblemDetail problem(ProblemCode code, String detail) {
        return CodedProblemAdvice.problem(code, detail);
    }
}
