package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.JoinRequestValidator.Violation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

import java.time.Duration;
import java.util.List;

/**
 * A rendezvous request that cannot be served. Rendered by Spring MVC as an RFC 9457 ProblemDetail with
 * {@code status}, {@code title}, a {@code detail} naming the field or rank, and {@code code}.
 */
public class RendezvousException extends ErrorResponseException {

    private final ProblemCode code;

    public RendezvousException(ProblemCode code, String detail) {
        super(code.status(), problem(code, detail), null);
        this.code = code;
    }

    public ProblemCode code() {
        return code;
    }

    /** Adds a {@code Retry-After} header: the earliest time a retry can succeed. */
    public RendezvousException retryAfter(Duration delay) {
        long seconds = Math.max(1, (delay.toMillis() + 999) / 1000);
        getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        return this;
    }

    public static RendezvousException invalid(List<Violation> violations) {
        String detail = String.join("; ", violations.stream().map(Violation::toString).toList());
        RendezvousException e = new RendezvousException(ProblemCode.INVALID_REQUEST, detail);
        e.getBody().setProperty("violations", violations.stream()
                .map(v -> java.util.Map.of("field", v.field(), "message", v.message()))
                .toList());
        return e;
    }

    public static RendezvousException invalid(String field, String message) {
        return invalid(List.of(new Violation(field, message)));
    }

    public static RendezvousException unknownGroup(String group) {
        return new RendezvousException(ProblemCode.UNKNOWN_GROUP, "group '" + group + "' does not exist");
    }

    private static ProblemDetail problem(ProblemCode code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(code.status(), detail);
        problem.setTitle(code.title());
        problem.setProperty("code", code.wireCode());
        return problem;
    }
}
